//! The store's tables through its typed methods: seats (a person or the AI), rated and casual
//! games and challenges, tournaments and their pairings. These run on SQLite here and on
//! PostgreSQL in `postgres_suite.rs`.

#[path = "../common/mod.rs"]
mod common;

use tara_bot::game::{BySide, EndReason, GameOptions, Outcome, Points, Scoring, Side, Variant};
use tara_bot::store::{ChannelId, ServerId, UserId};
use tara_bot::store::{
    FirstChoice, GameStatus, NewChallenge, NewGame, NewPairing, NewTournament, Pace, PairingResult,
    Seat, Store, StoreError, TournamentFormat, TournamentStatus, Tx, AI_USER_ID,
};
use tara_bot::store::{PairingId, TournamentId};

/// A new empty store (its temporary folder kept as long as it is).
fn fresh_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(common::new_db(dir.path())).unwrap();
    (dir, store)
}

/// Runs `f` in a read transaction.
fn read<T>(store: &mut Store, f: impl FnOnce(&Tx) -> Result<T, StoreError>) -> T {
    store.read(f).unwrap()
}

/// Runs `f` in a write transaction.
fn write<T>(store: &mut Store, f: impl FnOnce(&Tx) -> Result<T, StoreError>) -> T {
    store.write(f).unwrap()
}

/// The ids of a test game, owned, for a [`NewGame`] to borrow ([`Seated::game`]).
struct Seated {
    server: ServerId,
    channel: ChannelId,
    seats: [UserId; 2],
    ai_levels: [Option<u8>; 2],
}

fn new_game(channel: &str, seats: [&str; 2], ai_levels: [Option<u8>; 2]) -> Seated {
    Seated {
        server: ServerId::new("s"),
        channel: ChannelId::new(channel),
        seats: seats.map(UserId::new),
        ai_levels,
    }
}

impl Seated {
    fn game(&self) -> NewGame<'_> {
        NewGame {
            server_id: &self.server,
            channel_id: &self.channel,
            options: GameOptions::new(Variant::SacredHill2),
            seats: BySide::new(&self.seats[0], &self.seats[1]),
            ai_levels: BySide::from(self.ai_levels),
            match_id: None,
            match_game: None,
            pairing_id: None,
            rated: false,
            days_per_move: Some(2),
        }
    }
}

#[test]
fn a_seat_holds_a_person_or_the_ai_at_a_level() {
    let (_db, mut store) = fresh_store();
    write(&mut store, |tx| {
        tx.upsert_user(&UserId::new("aoife"), "Aoife", 0)?;
        let id = tx.insert_game(
            &new_game("c1", [AI_USER_ID, "aoife"], [Some(3), None]).game(),
            5,
        )?;
        let g = tx.game(id)?.unwrap();
        assert_eq!(g.seat(Side::Red), Seat::Ai { level: 3 });
        assert_eq!(
            g.seat(Side::Blue),
            Seat::Person {
                user_id: UserId::new("aoife")
            }
        );
        assert_eq!(
            g.seats,
            BySide::new(AI_USER_ID.to_string(), "aoife".to_string())
        );
        assert_eq!(g.ai_levels, BySide::new(Some(3), None));
        assert_eq!(g.seat_of("aoife"), Some(Side::Blue));
        assert_eq!(g.days_per_move, Some(2));
        assert_eq!(tx.active_games_of(&UserId::new(AI_USER_ID))?.len(), 1);
        // Two AIs may play each other.
        let id = tx.insert_game(
            &new_game("c2", [AI_USER_ID, AI_USER_ID], [Some(1), Some(5)]).game(),
            5,
        )?;
        assert_eq!(
            tx.game(id)?.unwrap().seat(Side::Blue),
            Seat::Ai { level: 5 }
        );
        Ok(())
    });
    // A level without the AI's user, the AI's user without a level, and a level out of range
    // are refused, and nothing is written.
    for (seats, levels) in [
        (["aoife", AI_USER_ID], [Some(2), Some(2)]),
        (["aoife", AI_USER_ID], [None, None]),
        (["aoife", AI_USER_ID], [None, Some(6)]),
        (["aoife", AI_USER_ID], [None, Some(0)]),
    ] {
        let r = store.write(|tx| tx.insert_game(&new_game("c3", seats, levels).game(), 5));
        assert!(
            matches!(r, Err(StoreError::Invalid(_))),
            "{levels:?}: {r:?}"
        );
    }
    read(&mut store, |tx| {
        assert_eq!(tx.game_count()?, 2);
        Ok(())
    });
    let seated = new_game("c", [AI_USER_ID, "x"], [Some(4), None]);
    let g = seated.game();
    assert_eq!(g.seat(Side::Red), Seat::Ai { level: 4 });
    assert_eq!(
        g.seat(Side::Blue),
        Seat::Person {
            user_id: UserId::new("x")
        }
    );
}

#[test]
fn games_and_challenges_are_rated_or_casual_and_record_when_they_ended() {
    let (_db, mut store) = fresh_store();
    write(&mut store, |tx| {
        tx.upsert_user(&UserId::new("a"), "A", 0)?;
        tx.upsert_user(&UserId::new("b"), "B", 0)?;
        for rated in [true, false] {
            let c = tx.insert_challenge(
                &NewChallenge {
                    server_id: &ServerId::new("s"),
                    channel_id: &ChannelId::new("c"),
                    challenger_id: &UserId::new("a"),
                    opponent_id: &UserId::new("b"),
                    variant: Variant::Hkot1,
                    scoring: Scoring::Knots,
                    first: FirstChoice::Challenger,
                    is_match: false,
                    rated,
                    days_per_move: Some(3),
                },
                1,
            )?;
            let row = tx.challenge(c)?.unwrap();
            assert_eq!(row.rated, rated);
            assert_eq!(
                (row.scoring, row.first, row.days_per_move),
                (Scoring::Knots, FirstChoice::Challenger, Some(3))
            );
        }
        let seated = new_game("g1", ["a", "b"], [None, None]);
        let mut g = seated.game();
        g.rated = true;
        let rated = tx.insert_game(&g, 10)?;
        let casual = tx.insert_game(&new_game("g2", ["a", "b"], [None, None]).game(), 10)?;
        assert!(tx.game(rated)?.unwrap().rated);
        assert!(!tx.game(casual)?.unwrap().rated);
        assert_eq!(tx.game(rated)?.unwrap().ended_at, None);
        let o = Outcome {
            winner: Some(Side::Blue),
            reason: EndReason::Resigned,
            points: BySide::new(Points(0), Points(4)),
        };
        tx.finish_game(rated, &o, 50)?;
        tx.abort_game(casual, 60)?;
        let (r, c) = (tx.game(rated)?.unwrap(), tx.game(casual)?.unwrap());
        assert_eq!(
            (r.status, r.ended_at, r.outcome),
            (GameStatus::Finished, Some(50), Some(o))
        );
        assert_eq!(
            (c.status, c.ended_at, c.outcome),
            (GameStatus::Aborted, Some(60), None)
        );
        let finished = tx.finished_games_of(
            &ServerId::new("s"),
            &UserId::new("b"),
            Some(Variant::SacredHill2),
            5,
        )?;
        assert_eq!(
            finished.iter().map(|g| g.id).collect::<Vec<_>>(),
            vec![rated]
        );
        assert!(tx
            .finished_games_of(&ServerId::new("other"), &UserId::new("b"), None, 5)?
            .is_empty());
        assert_eq!(
            tx.server_games(&ServerId::new("s"), GameStatus::Aborted, 5)?[0].id,
            casual
        );
        Ok(())
    });
}

#[test]
fn tournaments_and_pairings_round_trip() {
    let (_db, mut store) = fresh_store();
    write(&mut store, |tx| {
        for u in ["org", "p1", "p2", "p3"] {
            tx.upsert_user(&UserId::new(u), u, 0)?;
        }
        let t = tx.insert_tournament(
            &NewTournament {
                server_id: &ServerId::new("s"),
                channel_id: &ChannelId::new("tour"),
                creator_id: &UserId::new("org"),
                name: "Samhain Swiss",
                format: TournamentFormat::Swiss,
                variant: Variant::Hkot1,
                scoring: Scoring::Knots,
                days_per_move: Some(3),
                rated: true,
                is_match: false,
                double_rr: false,
                max_players: None,
                pace: Pace::AllAtOnce,
                rounds: None,
            },
            100,
        )?;
        let row = tx.tournament(t)?.unwrap();
        assert_eq!(
            (row.name.as_str(), row.format, row.status),
            (
                "Samhain Swiss",
                TournamentFormat::Swiss,
                TournamentStatus::Open
            )
        );
        assert_eq!(
            (row.variant, row.scoring, row.days_per_move, row.rated),
            (Variant::Hkot1, Scoring::Knots, Some(3), true)
        );
        assert_eq!(
            (
                row.server_id.as_str(),
                row.channel_id.as_str(),
                row.creator_id.as_str()
            ),
            ("s", "tour", "org")
        );
        assert_eq!((row.created_at, row.updated_at), (100, 100));
        let other = tx.insert_tournament(
            &NewTournament {
                server_id: &ServerId::new("s"),
                channel_id: &ChannelId::new("tour"),
                creator_id: &UserId::new("org"),
                name: "Cup",
                format: TournamentFormat::Knockout,
                variant: Variant::ArdRi,
                scoring: Scoring::Kingdoms,
                days_per_move: None,
                rated: false,
                is_match: false,
                double_rr: false,
                max_players: None,
                pace: Pace::AllAtOnce,
                rounds: None,
            },
            110,
        )?;
        tx.set_tournament_status(t, TournamentStatus::Running, 120)?;
        let row = tx.tournament(t)?.unwrap();
        assert_eq!(
            (row.status, row.updated_at),
            (TournamentStatus::Running, 120)
        );
        let list = tx.server_tournaments(&ServerId::new("s"))?;
        assert_eq!(
            list.iter().map(|t| t.id).collect::<Vec<_>>(),
            vec![other, t]
        );
        assert_eq!(list[0].format, TournamentFormat::Knockout);
        assert!(tx
            .server_tournaments(&ServerId::new("elsewhere"))?
            .is_empty());

        // Round 1: a game and a bye.
        let board1 = tx.insert_pairing(
            &NewPairing {
                tournament_id: t,
                round: 1,
                board: 1,
                player0: &UserId::new("p1"),
                player1: Some(&UserId::new("p2")),
            },
            130,
        )?;
        let bye = tx.insert_pairing(
            &NewPairing {
                tournament_id: t,
                round: 1,
                board: 2,
                player0: &UserId::new("p3"),
                player1: None,
            },
            130,
        )?;
        let seated = new_game("thread-1", ["p1", "p2"], [None, None]);
        let mut g = seated.game();
        g.pairing_id = Some(board1);
        g.rated = true;
        let game = tx.insert_game(&g, 131)?;
        tx.set_pairing_game(board1, Some(game), None, 131)?;
        tx.set_pairing_result(bye, PairingResult::Bye, 131)?;
        let p = tx.pairing(board1)?.unwrap();
        assert_eq!((p.tournament_id, p.round, p.board), (t, 1, 1));
        assert_eq!(
            (p.player0.as_str(), p.player1.as_ref().map(UserId::as_str)),
            ("p1", Some("p2"))
        );
        assert_eq!(
            (p.result, p.game_id, p.match_id, p.created_at, p.updated_at),
            (None, Some(game), None, 130, 131)
        );
        let b = tx.pairing(bye)?.unwrap();
        assert_eq!((b.player1, b.result), (None, Some(PairingResult::Bye)));
        assert_eq!(tx.game(game)?.unwrap().pairing_id, Some(board1));
        assert_eq!(
            tx.pairing_games(board1)?
                .iter()
                .map(|g| g.id)
                .collect::<Vec<_>>(),
            vec![game]
        );
        tx.set_pairing_result(board1, PairingResult::Forfeit1, 140)?;
        assert_eq!(
            tx.pairing(board1)?.unwrap().result,
            Some(PairingResult::Forfeit1)
        );

        // Round 2, and the order pairings come back in.
        tx.insert_pairing(
            &NewPairing {
                tournament_id: t,
                round: 2,
                board: 1,
                player0: &UserId::new("p3"),
                player1: Some(&UserId::new("p1")),
            },
            150,
        )?;
        let all = tx.pairings(t, None)?;
        assert_eq!(
            all.iter().map(|p| (p.round, p.board)).collect::<Vec<_>>(),
            vec![(1, 1), (1, 2), (2, 1)]
        );
        assert_eq!(tx.pairings(t, Some(2))?.len(), 1);
        assert!(tx.pairings(other, None)?.is_empty());
        assert!(tx.pairing(PairingId(9999))?.is_none());
        Ok(())
    });
    // A board is paired once per round; a pairing names a real tournament.
    let twice = store.write(|tx| {
        tx.insert_pairing(
            &NewPairing {
                tournament_id: TournamentId(1),
                round: 1,
                board: 1,
                player0: &UserId::new("p2"),
                player1: Some(&UserId::new("p3")),
            },
            200,
        )
    });
    assert!(matches!(twice, Err(StoreError::Sql(_))), "{twice:?}");
    let orphan = store.write(|tx| {
        tx.insert_pairing(
            &NewPairing {
                tournament_id: TournamentId(77),
                round: 1,
                board: 1,
                player0: &UserId::new("p2"),
                player1: None,
            },
            200,
        )
    });
    assert!(orphan.is_err());
    // Every value passes the table's CHECK and reads back as itself.
    write(&mut store, |tx| {
        for (i, format) in TournamentFormat::ALL.iter().enumerate() {
            let t = tx.insert_tournament(
                &NewTournament {
                    server_id: &ServerId::new("forms"),
                    channel_id: &ChannelId::new("c"),
                    creator_id: &UserId::new("org"),
                    name: "t",
                    format: *format,
                    variant: Variant::Hkot2,
                    scoring: Scoring::Kingdoms,
                    days_per_move: None,
                    rated: false,
                    is_match: false,
                    double_rr: false,
                    max_players: None,
                    pace: Pace::AllAtOnce,
                    rounds: None,
                },
                300,
            )?;
            assert_eq!(tx.tournament(t)?.unwrap().format, *format);
            let status = TournamentStatus::ALL[i % TournamentStatus::ALL.len()];
            tx.set_tournament_status(t, status, 301)?;
            assert_eq!(tx.tournament(t)?.unwrap().status, status);
        }
        for status in TournamentStatus::ALL {
            tx.set_tournament_status(TournamentId(1), *status, 302)?;
            assert_eq!(tx.tournament(TournamentId(1))?.unwrap().status, *status);
        }
        for result in PairingResult::ALL {
            tx.set_pairing_result(PairingId(1), *result, 303)?;
            assert_eq!(tx.pairing(PairingId(1))?.unwrap().result, Some(*result));
        }
        Ok(())
    });
    let ids = |all: Vec<&'static str>| all.join(" ");
    assert_eq!(
        ids(TournamentFormat::ALL.iter().map(|f| f.id()).collect()),
        "swiss round-robin knockout"
    );
    assert_eq!(
        ids(PairingResult::ALL.iter().map(|r| r.id()).collect()),
        "win0 win1 draw forfeit0 forfeit1 bye"
    );
    assert_eq!(TournamentFormat::from_id("ladder"), None);
}
