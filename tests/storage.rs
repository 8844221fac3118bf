//! The store on its own: an upgrade of a database written by the previous `main` (schema 2,
//! `tests/data/v2-main.db`, made by `tests/data/make-v2-main-db.py`) with nothing lost, a
//! fresh database, migrations run twice, a newer schema refused, bad stored values reported,
//! damaged and foreign files, backups. The round trips through the tables are in
//! `flows/store_tables.rs`, which runs on both backends; `postgres_storage.rs` has PostgreSQL's own.

use std::path::{Path, PathBuf};
use tara_bot::game::{
    BySide, EndReason, GameOptions, Outcome, Points, Position, Scoring, Side, Variant,
};
use tara_bot::store::VacationId;
use tara_bot::store::{ChallengeId, MatchId};
use tara_bot::store::{
    ChallengeStatus, FirstChoice, GameId, GameRow, GameStatus, MatchRow, MoveRow, NewGame, Owner,
    Seat, Store, StoreError, TakebackRow, Tx, UserRow, VacationRow, AI_USER_ID, APPLICATION_ID,
    SCHEMA_VERSION,
};
use tara_bot::store::{ChannelId, ServerId, UserId};
use tara_bot::store::{ServerSetting, UserSetting};

/// Runs `f` in a read transaction.
fn read<T>(store: &mut Store, f: impl FnOnce(&Tx) -> Result<T, StoreError>) -> T {
    store.read(f).unwrap()
}

/// Runs `f` in a write transaction.
fn write<T>(store: &mut Store, f: impl FnOnce(&Tx) -> Result<T, StoreError>) -> T {
    store.write(f).unwrap()
}

/// A copy of the schema-2 database in a temporary folder (the original stays untouched).
fn v2_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2-main.db");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/v2-main.db"),
        &path,
    )
    .unwrap();
    (dir, path)
}

/// FNV-1a over one line per move, the same as the Python one-liner that read the expected
/// value from the schema-2 file (see the upgrade test).
fn moves_digest(rows: &[(i64, MoveRow)]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (game, m) in rows {
        let line = format!(
            "{game} {} {} {} {}\n",
            m.ply,
            m.notation,
            m.user_id.as_ref().map(UserId::as_str).unwrap_or("-"),
            m.created_at
        );
        for b in line.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// A game as the previous `main` stored it: id, channel, variant, scoring, first side, seats,
/// status and number of moves.
type ExpectedGame = (
    i64,
    &'static str,
    Variant,
    Scoring,
    Side,
    [&'static str; 2],
    GameStatus,
    usize,
);

fn options(variant: Variant, scoring: Scoring, first: Side) -> GameOptions {
    GameOptions::with(variant, Some(scoring), Some(first)).unwrap()
}

/// Values read from `tests/data/v2-main.db` with schema 2 (the `sqlite3` shell over the file the
/// previous `main` wrote):
/// `SELECT id, channel_id, …, (SELECT COUNT(*) FROM moves WHERE game_id = g.id) FROM games g`.
#[test]
fn a_database_written_by_the_previous_main_upgrades_with_everything_intact() {
    let (_dir, path) = v2_copy();
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(SCHEMA_VERSION, 18);

    // Games: 12 in all; (id, channel, variant, scoring, first, seats, status, move count).
    let expected: [ExpectedGame; 12] = [
        (
            1,
            "hkot1-done",
            Variant::Hkot1,
            Scoring::Knots,
            Side::Blue,
            ["alice", "bob"],
            GameStatus::Finished,
            60,
        ),
        (
            2,
            "hkot2-done",
            Variant::Hkot2,
            Scoring::Kingdoms,
            Side::Red,
            ["bob", "carol"],
            GameStatus::Finished,
            48,
        ),
        (
            3,
            "sh1-done",
            Variant::SacredHill1,
            Scoring::Kingdoms,
            Side::Red,
            ["carol", "alice"],
            GameStatus::Finished,
            9,
        ),
        (
            4,
            "sh2-done",
            Variant::SacredHill2,
            Scoring::Kingdoms,
            Side::Red,
            ["dave", "erin"],
            GameStatus::Finished,
            47,
        ),
        (
            5,
            "ardri-done",
            Variant::ArdRi,
            Scoring::Kingdoms,
            Side::Attackers,
            ["erin", "dave"],
            GameStatus::Finished,
            252,
        ),
        (
            6,
            "abort-me",
            Variant::Hkot1,
            Scoring::Kingdoms,
            Side::Red,
            ["bob", "dave"],
            GameStatus::Aborted,
            0,
        ),
        (
            7,
            "match-ch",
            Variant::Hkot2,
            Scoring::Kingdoms,
            Side::Red,
            ["alice", "erin"],
            GameStatus::Finished,
            53,
        ),
        (
            8,
            "match-ch",
            Variant::Hkot2,
            Scoring::Kingdoms,
            Side::Blue,
            ["alice", "erin"],
            GameStatus::Active,
            3,
        ),
        (
            9,
            "ardri-live",
            Variant::ArdRi,
            Scoring::Kingdoms,
            Side::Attackers,
            ["carol", "dave"],
            GameStatus::Active,
            6,
        ),
        (
            10,
            "sh2-live",
            Variant::SacredHill2,
            Scoring::Kingdoms,
            Side::Blue,
            ["dave", "erin"],
            GameStatus::Active,
            4,
        ),
        (
            11,
            "clock-3d",
            Variant::SacredHill1,
            Scoring::Kingdoms,
            Side::Red,
            ["bob", "dave"],
            GameStatus::Active,
            3,
        ),
        (
            12,
            "clock-1d",
            Variant::Hkot1,
            Scoring::Kingdoms,
            Side::Red,
            ["carol", "erin"],
            GameStatus::Finished,
            2,
        ),
    ];
    let (games, all_moves) = read(&mut store, |tx| {
        assert_eq!(tx.game_count()?, 12);
        let mut games = Vec::new();
        let mut all_moves = Vec::new();
        for id in (1..=12).map(GameId) {
            let g = tx.game(id)?.unwrap();
            for m in tx.moves(id)? {
                all_moves.push((id.0, m));
            }
            games.push(g);
        }
        assert!(tx.game(GameId(13))?.is_none());
        Ok((games, all_moves))
    });
    for (g, e) in games.iter().zip(&expected) {
        let (id, channel, variant, scoring, first, seats, status, n) = *e;
        assert_eq!(g.id, GameId(id));
        assert_eq!(g.server_id, "local");
        assert_eq!(g.channel_id, channel, "game {id}");
        assert_eq!(g.options, options(variant, scoring, first), "game {id}");
        assert_eq!(g.seats, BySide::from(seats.map(String::from)), "game {id}");
        assert_eq!(g.status, status, "game {id}");
        assert_eq!(
            all_moves.iter().filter(|(gid, _)| *gid == id).count(),
            n,
            "game {id}"
        );
        // New in schema 3: nothing rated before ratings, every seat a person, no tournament,
        // and the end time of an ended game is its last change.
        assert!(!g.rated, "game {id}");
        assert_eq!(g.ai_levels, BySide::new(None, None));
        assert_eq!(
            g.seat(g.sides()[0]),
            Seat::Person {
                user_id: UserId::new(seats[0])
            }
        );
        assert_eq!(g.pairing_id, None);
        match status {
            GameStatus::Active => assert_eq!(g.ended_at, None),
            _ => assert_eq!(g.ended_at, Some(g.updated_at), "game {id}"),
        }
        assert_eq!(g.public_id().to_string(), format!("#{id}"));
    }

    // Every move, by a digest computed from the schema-2 file:
    //   h = FNV-1a 64 of "game ply notation user created\n" for each move by game and ply.
    assert_eq!(all_moves.len(), 487);
    assert!(all_moves.iter().all(|(_, m)| m.user_id.is_some()));
    assert_eq!(moves_digest(&all_moves), 0x51ed_9b37_79f2_1a2a);
    let mv = |game: i64, ply: u32| {
        all_moves
            .iter()
            .find(|(g, m)| *g == game && m.ply == ply)
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(
        mv(5, 251),
        MoveRow {
            ply: 251,
            notation: "f7-g7".into(),
            user_id: Some(UserId::new("dave")),
            created_at: 1_796_045_775_006
        }
    );
    assert_eq!(
        mv(1, 0),
        MoveRow {
            ply: 0,
            notation: "B4".into(),
            user_id: Some(UserId::new("bob")),
            created_at: 1_796_045_774_714
        }
    );
    assert_eq!(mv(9, 5).notation, "b6-a6");

    // Each game replays to what is stored: the results of ended games, none for the others.
    for g in &games {
        let mut pos = Position::new(g.options);
        for (_, m) in all_moves.iter().filter(|(gid, _)| *gid == g.id.0) {
            pos.play_text(&m.notation).unwrap();
        }
        match g.outcome.as_ref().map(|o| o.reason) {
            Some(EndReason::Resigned | EndReason::Timeout) => assert!(pos.outcome().is_none()),
            Some(_) => assert_eq!(pos.outcome(), g.outcome.as_ref(), "game {}", g.id),
            None => assert!(pos.outcome().is_none(), "game {}", g.id),
        }
    }

    // Exact results, match links and clocks of a few games.
    let g1 = &games[0];
    assert_eq!(
        g1.outcome,
        Some(Outcome {
            winner: Some(Side::Red),
            reason: EndReason::Score,
            points: BySide::new(Points(8), Points(2))
        })
    );
    assert_eq!(
        (g1.created_at, g1.updated_at, g1.turn_started_at),
        (1_796_045_774_714, 1_796_045_774_743, 1_796_045_774_742)
    );
    assert_eq!(
        games[2].outcome,
        Some(Outcome {
            winner: Some(Side::Red),
            reason: EndReason::Resigned,
            points: BySide::new(Points(4), Points(0))
        })
    );
    assert_eq!(
        games[4].outcome,
        Some(Outcome {
            winner: Some(Side::Defenders),
            reason: EndReason::KingEscaped,
            points: BySide::new(Points(0), Points(2))
        })
    );
    assert_eq!(games[5].outcome, None);
    assert_eq!(
        (games[6].match_id, games[6].match_game),
        (Some(MatchId(1)), Some(1))
    );
    assert_eq!(
        (games[7].match_id, games[7].match_game),
        (Some(MatchId(1)), Some(2))
    );
    let clocked = &games[10];
    assert_eq!(clocked.days_per_move, Some(3));
    assert_eq!(clocked.clock_start_at, Some(1_796_045_775_043));
    assert_eq!(clocked.deadline_at, Some(1_796_304_975_043));
    assert_eq!(clocked.reminders_sent, 2);
    assert_eq!(clocked.reminded_at, Some(1_796_218_575_047));
    let timed_out = &games[11];
    assert_eq!(
        timed_out.outcome,
        Some(Outcome {
            winner: Some(Side::Blue),
            reason: EndReason::Timeout,
            points: BySide::new(Points(0), Points(4))
        })
    );
    assert_eq!(
        (timed_out.days_per_move, timed_out.deadline_at),
        (Some(1), Some(1_796_132_175_046))
    );
    assert_eq!(timed_out.ended_at, Some(1_796_218_575_047));

    read(&mut store, |tx| {
        // Lookups by channel and player.
        assert_eq!(
            tx.active_game(&ChannelId::new("match-ch"))?.unwrap().id,
            GameId(8)
        );
        assert_eq!(
            tx.latest_game(&ChannelId::new("match-ch"))?.unwrap().id,
            GameId(8)
        );
        assert_eq!(
            tx.latest_game(&ChannelId::new("abort-me"))?.unwrap().id,
            GameId(6)
        );
        assert!(tx.active_game(&ChannelId::new("hkot1-done"))?.is_none());
        let ids = |gs: Vec<GameRow>| gs.into_iter().map(|g| g.id.0).collect::<Vec<_>>();
        assert_eq!(
            ids(tx.active_games_of(&UserId::new("dave"))?),
            vec![9, 10, 11]
        );
        assert_eq!(ids(tx.active_games_of(&UserId::new("erin"))?), vec![8, 10]);
        assert_eq!(tx.clocked_games()?, vec![GameId(11)]);
        assert_eq!(
            ids(tx.server_games(&ServerId::new("local"), GameStatus::Active, 10)?),
            vec![11, 10, 9, 8]
        );
        assert_eq!(
            ids(tx.finished_games_of(&ServerId::new("local"), &UserId::new("erin"), None, 10)?),
            vec![12, 7, 5, 4]
        );
        assert_eq!(
            ids(tx.finished_games_of(
                &ServerId::new("local"),
                &UserId::new("erin"),
                Some(Variant::ArdRi),
                10
            )?),
            vec![5]
        );

        // The match.
        assert_eq!(
            tx.match_row(MatchId(1))?,
            Some(MatchRow {
                id: MatchId(1),
                players: [UserId::new("alice"), UserId::new("erin")],
                variant: Variant::Hkot2,
                scoring: Scoring::Kingdoms,
                finished: false,
            })
        );
        assert_eq!(ids(tx.match_games(MatchId(1))?), vec![7, 8]);

        // Challenges: 11 accepted (each with its game), two open, one declined, one cancelled.
        let mut statuses = Vec::new();
        for id in (1..=15).map(ChallengeId) {
            let c = tx.challenge(id)?.unwrap();
            assert!(!c.rated);
            statuses.push(c.status);
        }
        assert!(tx.challenge(ChallengeId(16))?.is_none());
        assert_eq!(
            statuses
                .iter()
                .filter(|s| **s == ChallengeStatus::Accepted)
                .count(),
            11
        );
        assert_eq!(
            tx.challenge(ChallengeId(8))?.unwrap().game_id,
            Some(GameId(9))
        );
        let open = tx.open_challenges(&ChannelId::new("lobby-2"))?;
        assert_eq!(open.len(), 1);
        let c = &open[0];
        assert_eq!(
            (
                c.id,
                c.challenger_id.as_str(),
                c.opponent_id.as_str(),
                c.variant,
                c.scoring
            ),
            (
                ChallengeId(13),
                "carol",
                "bob",
                Variant::Hkot2,
                Scoring::Kingdoms
            )
        );
        assert_eq!(
            (c.first, c.is_match, c.days_per_move),
            (FirstChoice::Opponent, true, Some(7))
        );
        assert_eq!(
            (c.status, c.game_id, c.created_at),
            (ChallengeStatus::Open, None, 1_796_218_575_048)
        );
        assert_eq!(
            tx.open_challenges(&ChannelId::new("lobby"))?[0].first,
            FirstChoice::Random
        );
        let declined = tx.challenge(ChallengeId(14))?.unwrap();
        assert_eq!(
            (declined.status, declined.scoring),
            (ChallengeStatus::Declined, Scoring::Knots)
        );
        assert_eq!(
            tx.challenge(ChallengeId(15))?.unwrap().status,
            ChallengeStatus::Cancelled
        );
        assert_eq!(
            tx.challenge(ChallengeId(1))?.unwrap().first,
            FirstChoice::Opponent
        );

        // The takeback request, the vacation and the settings.
        assert_eq!(
            tx.takeback(GameId(9))?,
            Some(TakebackRow {
                game_id: GameId(9),
                ply: 5,
                requested_by: UserId::new("dave")
            })
        );
        assert_eq!(tx.takeback(GameId(8))?, None);
        assert_eq!(
            tx.vacations(&UserId::new("erin"))?,
            vec![VacationRow {
                id: VacationId(1),
                user_id: UserId::new("erin"),
                start_at: 1_796_218_575_050,
                end_at: 1_796_477_775_050
            }]
        );
        assert_eq!(
            tx.vacation_end(&UserId::new("erin"), 1_796_300_000_000)?,
            Some(1_796_477_775_050)
        );
        assert_eq!(
            tx.vacation_taken(&UserId::new("erin"), 0, i64::MAX)?,
            3 * 86_400_000
        );
        assert_eq!(
            tx.user_settings(&UserId::new("alice"))?,
            vec![("reminders".into(), "off".into())]
        );
        assert_eq!(
            tx.user_setting(&UserId::new("dave"), UserSetting::REMINDERS)?
                .as_deref(),
            Some("dm")
        );
        assert_eq!(
            tx.server_settings(&ServerId::new("local"))?,
            vec![
                ("default_days".into(), "5".into()),
                ("reminder_hours".into(), "12".into())
            ]
        );

        // The users, and the AI's user the migration added.
        assert_eq!(
            tx.user(&UserId::new("carol"))?,
            Some(UserRow {
                id: UserId::new("carol"),
                name: "Carol".into(),
                created_at: 1_796_045_774_743,
                updated_at: 1_796_045_774_743
            })
        );
        for (id, name) in [
            ("alice", "Alice"),
            ("bob", "Bob"),
            ("dave", "Dave"),
            ("erin", "Erin"),
        ] {
            assert_eq!(tx.user_name(&UserId::new(id))?.as_deref(), Some(name));
        }
        assert!(tx.user(&UserId::new(AI_USER_ID))?.is_some());
        Ok(())
    });

    // The upgraded file takes new writes: the live Ard Rí game goes on, and a new game starts.
    let next = {
        let mut pos = Position::new(games[8].options);
        for (_, m) in all_moves.iter().filter(|(g, _)| *g == 9) {
            pos.play_text(&m.notation).unwrap();
        }
        pos.legal_notation()[0].clone()
    };
    let id = write(&mut store, |tx| {
        tx.clear_takeback(GameId(9))?;
        tx.insert_move(
            GameId(9),
            &MoveRow {
                ply: 6,
                notation: next.clone(),
                user_id: Some(UserId::new("carol")),
                created_at: 1_796_300_000_000,
            },
        )?;
        tx.insert_game(
            &NewGame {
                server_id: &ServerId::new("local"),
                channel_id: &ChannelId::new("lobby"),
                options: GameOptions::new(Variant::ArdRi),
                seats: BySide::new(&UserId::new("alice"), &UserId::new("carol")),
                ai_levels: BySide::new(None, None),
                match_id: None,
                match_game: None,
                pairing_id: None,
                rated: true,
                days_per_move: None,
            },
            1_796_300_000_000,
        )
    });
    assert_eq!(id, GameId(13));
    drop(store);

    // Opened again, nothing is applied twice and everything is still there.
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    read(&mut store, |tx| {
        assert_eq!(tx.game_count()?, 13);
        assert_eq!(tx.moves(GameId(9))?.len(), 7);
        assert_eq!(tx.takeback(GameId(9))?, None);
        assert!(tx.game(GameId(13))?.unwrap().rated);
        Ok(())
    });
}

#[test]
fn a_fresh_database_has_the_current_schema_and_opens_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fresh.db");
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    write(&mut store, |tx| {
        assert_eq!(tx.game_count()?, 0);
        assert!(
            tx.user(&UserId::new(AI_USER_ID))?.is_some(),
            "the AI's user is there from the start"
        );
        tx.upsert_user(&UserId::new("aoife"), "Aoife", 10)?;
        tx.set_server_setting(&ServerId::new("s"), ServerSetting::DEFAULT_DAYS, "3")?;
        Ok(())
    });
    drop(store);
    for _ in 0..2 {
        let mut store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        read(&mut store, |tx| {
            assert_eq!(
                tx.user_name(&UserId::new("aoife"))?.as_deref(),
                Some("Aoife")
            );
            assert_eq!(
                tx.server_setting(&ServerId::new("s"), ServerSetting::DEFAULT_DAYS)?
                    .as_deref(),
                Some("3")
            );
            Ok(())
        });
    }
    let mut mem = Store::open_in_memory().unwrap();
    assert_eq!(mem.schema_version().unwrap(), SCHEMA_VERSION);
    read(&mut mem, |tx| {
        assert_eq!(tx.game_count()?, 0);
        Ok(())
    });
}

#[test]
fn a_database_from_a_newer_build_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("newer.db");
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    match Store::open(&path) {
        Err(e @ StoreError::TooNew { found: 99, known }) => {
            assert_eq!(known, SCHEMA_VERSION);
            assert!(e.to_string().contains("newer tara-bot"), "{e}");
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a schema-99 file was opened"),
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 99);
}

#[test]
fn bad_stored_values_are_reported_as_corrupt_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.db");
    let mut store = Store::open(&path).unwrap();
    let id = write(&mut store, |tx| {
        tx.upsert_user(&UserId::new("a"), "A", 0)?;
        tx.upsert_user(&UserId::new("b"), "B", 0)?;
        tx.insert_game(
            &NewGame {
                server_id: &ServerId::new("s"),
                channel_id: &ChannelId::new("c"),
                options: GameOptions::new(Variant::Hkot1),
                seats: BySide::new(&UserId::new("a"), &UserId::new("b")),
                ai_levels: BySide::new(None, None),
                match_id: None,
                match_game: None,
                pairing_id: None,
                rated: false,
                days_per_move: None,
            },
            0,
        )
    });
    drop(store);
    for (sql, column) in [
        ("UPDATE games SET variant = 'chess'", "games.variant"),
        (
            "UPDATE games SET variant = 'hkot-1', first_side = 'green'",
            "games.first_side",
        ),
        (
            "UPDATE games SET first_side = 'red', winner = 'purple'",
            "games.winner",
        ),
    ] {
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        let mut store = Store::open(&path).unwrap();
        match store.read(|tx| tx.game(id)) {
            Err(StoreError::Corrupt(what)) => assert!(what.contains(column), "{what}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
}

#[test]
fn game_ids_are_typed_as_hash_numbers() {
    assert_eq!(GameId(123).to_string(), "#123");
    assert_eq!("#123".parse::<GameId>(), Ok(GameId(123)));
    assert_eq!("123".parse::<GameId>(), Ok(GameId(123)));
    assert_eq!(" #7 ".parse::<GameId>(), Ok(GameId(7)));
    for bad in ["", "#", "#-3", "0", "12a", "##1", "+5", "#1 2"] {
        let e = bad.parse::<GameId>().unwrap_err();
        assert!(e.to_string().contains("#123"), "{bad}: {e}");
    }
    assert_eq!(i64::from(GameId(9)), 9);
}

/// A database of `games` finished random games (each inserted with all its moves in one
/// transaction), closed so that everything is in the main file.
fn database_with_games(path: &Path, games: u64) {
    let mut store = Store::open(path).unwrap();
    for seed in 0..games {
        insert_random_game(&mut store, seed);
    }
}

/// Inserts a random complete game of a variant chosen by `seed`, with its moves, in one
/// transaction; its id.
fn insert_random_game(store: &mut Store, seed: u64) -> GameId {
    use tara_bot::game::playout::{random_game, Rng};
    let variant = Variant::ALL[seed as usize % Variant::ALL.len()];
    let (_, moves) = random_game(GameOptions::new(variant), &mut Rng::new(seed + 1));
    write(store, |tx| {
        tx.upsert_user(&UserId::new("aoife"), "Aoife", 0)?;
        tx.upsert_user(&UserId::new("brian"), "Brian", 0)?;
        let channel = format!("channel-{seed}");
        let id = tx.insert_game(
            &NewGame {
                server_id: &ServerId::new("s"),
                channel_id: &ChannelId::new(&channel),
                options: GameOptions::new(variant),
                seats: BySide::new(&UserId::new("aoife"), &UserId::new("brian")),
                ai_levels: BySide::new(None, None),
                match_id: None,
                match_game: None,
                pairing_id: None,
                rated: false,
                days_per_move: None,
            },
            seed as i64,
        )?;
        for (ply, m) in moves.iter().enumerate() {
            tx.insert_move(
                id,
                &MoveRow {
                    ply: ply as u32,
                    notation: m.to_string(),
                    user_id: Some(UserId::new(["aoife", "brian"][ply % 2].to_string())),
                    created_at: seed as i64 * 1000 + ply as i64,
                },
            )?;
        }
        Ok(id)
    })
}

/// Every game of a database with its moves, by id.
fn all_games(store: &mut Store) -> Vec<(GameRow, Vec<MoveRow>)> {
    read(store, |tx| {
        let mut out = Vec::new();
        let mut id = 1;
        while let Some(g) = tx.game(GameId(id))? {
            let moves = tx.moves(GameId(id))?;
            out.push((g, moves));
            id += 1;
        }
        assert_eq!(out.len() as i64, tx.game_count()?, "game ids are 1..=n");
        Ok(out)
    })
}

fn application_id(path: &Path) -> i32 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap()
}

/// Runs the binary in an empty folder (so no configuration file is read).
fn tara_bot(args: &[&str]) -> std::process::Output {
    tara_bot_with(args, &[])
}

/// Runs the binary in an empty folder with these environment variables.
fn tara_bot_with(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let cwd = tempfile::tempdir().unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(args)
        .current_dir(cwd.path())
        .env_remove("RUST_LOG")
        .env_remove("TARA_BOT_CONFIG")
        .env_remove("DISCORD_TOKEN_FILE")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// The message a refusal to use a damaged database gives: how to restore from a backup.
fn assert_says_how_to_restore(message: &str) {
    for part in ["tara-bot db backup", "Backups", "copy", "-wal"] {
        assert!(message.contains(part), "{part:?} missing from: {message}");
    }
}

#[test]
fn a_corrupt_database_is_refused_with_how_to_restore_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("corrupt.db");
    database_with_games(&path, 60);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(
        size > 20 * 4096,
        "{size} bytes: enough pages to damage some"
    );
    assert!(tara_bot::store::check(&path).unwrap().is_fine());
    // Garbage over pages 4 to 9 (of 4096 bytes), well inside the file: the schema in page 1
    // is still readable, the b-trees of the tables are not.
    let mut bytes = std::fs::read(&path).unwrap();
    let mut x: u32 = 0x1234_5678;
    for b in &mut bytes[3 * 4096..9 * 4096] {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        *b = (x >> 24) as u8;
    }
    std::fs::write(&path, &bytes).unwrap();

    match Store::open(&path) {
        Err(e @ StoreError::Damaged(_)) => {
            let message = e.to_string();
            assert!(message.contains("quick_check"), "{message}");
            assert_says_how_to_restore(&message);
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a corrupt database was opened"),
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the file is left as it was"
    );

    let report = tara_bot::store::check(&path).unwrap();
    assert!(!report.is_fine());
    assert!(!report.problems.is_empty());
    let text = report.to_string();
    assert!(text.contains("integrity: PROBLEM"), "{text}");
    assert_says_how_to_restore(&text);

    // The bot refuses to start on it; `db check` fails.
    let db = path.to_str().unwrap();
    let out = tara_bot(&["local", "--db", db, "--no-images"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("damaged"), "{err}");
    assert_says_how_to_restore(&err);
    assert!(out.stdout.is_empty(), "nothing was served");
    // The Discord bot too, before it connects (the proxy address would refuse it anyway).
    let out = tara_bot_with(
        &["run", "--db", db],
        &[
            ("DISCORD_TOKEN", "not-a-real-token"),
            ("DISCORD_PROXY_URL", "http://127.0.0.1:9"),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("damaged"), "{err}");
    assert_says_how_to_restore(&err);
    let out = tara_bot(&["db", "check", "--db", db]);
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(report.contains("integrity: PROBLEM"), "{report}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "still as it was");
}

#[test]
fn a_file_that_is_not_sqlite_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    let text = "These are my notes, not a database.\n".repeat(200);
    std::fs::write(&path, &text).unwrap();
    match Store::open(&path) {
        Err(e @ StoreError::NotADatabase) => {
            let message = e.to_string();
            assert!(message.contains("not an SQLite database"), "{message}");
            assert!(message.contains("--db"), "{message}");
            assert_says_how_to_restore(&message);
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a text file was opened as a database"),
    }
    assert!(matches!(
        tara_bot::store::check(&path),
        Err(StoreError::NotADatabase)
    ));
    let out = tara_bot(&["db", "check", "--db", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("not an SQLite database"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_fresh_database_is_marked_and_an_older_tara_bot_database_adopted() {
    assert_eq!(APPLICATION_ID, i32::from_be_bytes(*b"TARA"));
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.db");
    drop(Store::open(&fresh).unwrap());
    assert_eq!(application_id(&fresh), APPLICATION_ID);
    let report = tara_bot::store::check(&fresh).unwrap();
    assert_eq!(report.owner, Owner::TaraBot);
    assert!(report.is_fine(), "{report}");

    // The previous main's file: application id 0 and tara-bot's tables.
    let (_v2dir, v2) = v2_copy();
    assert_eq!(application_id(&v2), 0);
    assert_eq!(
        tara_bot::store::check(&v2).unwrap().owner,
        Owner::OlderTaraBot
    );
    let mut store = Store::open(&v2).unwrap();
    assert_eq!(read(&mut store, |tx| tx.game_count()), 12);
    drop(store);
    assert_eq!(application_id(&v2), APPLICATION_ID);
    drop(Store::open(&v2).unwrap());
}

#[test]
fn another_programs_database_is_refused_without_writing_to_it() {
    let dir = tempfile::tempdir().unwrap();
    // Another program's file with its own tables.
    let notes = dir.path().join("notes.db");
    let conn = rusqlite::Connection::open(&notes).unwrap();
    conn.execute_batch(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
         INSERT INTO notes (body) VALUES ('buy milk');
         PRAGMA user_version = 7;",
    )
    .unwrap();
    drop(conn);
    // A file with tara-bot's tables but another program's application id.
    let marked = dir.path().join("marked.db");
    drop(Store::open(&marked).unwrap());
    rusqlite::Connection::open(&marked)
        .unwrap()
        .pragma_update(None, "application_id", 0x0bad_cafe)
        .unwrap();
    // And one with no tables but an application id of its own.
    let empty = dir.path().join("empty-other.db");
    rusqlite::Connection::open(&empty)
        .unwrap()
        .pragma_update(None, "application_id", 0x4d41_5053)
        .unwrap();

    for (path, why) in [
        (&notes, "its tables are notes"),
        (&marked, "application id is 0x0badcafe"),
        (&empty, "application id is 0x4d415053"),
    ] {
        let before = std::fs::read(path).unwrap();
        match Store::open(path) {
            Err(e @ StoreError::Foreign(_)) => {
                let message = e.to_string();
                assert!(message.contains(why), "{message}");
                assert!(message.contains("another program"), "{message}");
                assert!(message.contains("has not changed it"), "{message}");
            }
            Err(e) => panic!("{}: wrong error: {e}", path.display()),
            Ok(_) => panic!("{} was opened", path.display()),
        }
        assert_eq!(std::fs::read(path).unwrap(), before, "{}", path.display());
        let report = tara_bot::store::check(path).unwrap();
        assert!(matches!(report.owner, Owner::Foreign(_)), "{report}");
        assert!(!report.is_fine());
        let out = tara_bot(&["local", "--db", path.to_str().unwrap(), "--no-images"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8(out.stderr).unwrap().contains(why));
        let out = tara_bot(&["db", "check", "--db", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(std::fs::read(path).unwrap(), before, "{}", path.display());
    }
    let conn = rusqlite::Connection::open(&notes).unwrap();
    let tables: i64 = conn
        .query_row("SELECT COUNT(*) FROM sqlite_schema", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tables, 1, "no table was added");
}

#[test]
fn a_backup_taken_while_games_are_written_restores_every_game_intact() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.db");
    database_with_games(&live, 150);
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicU64::new(150));
    let writer = {
        let (live, stop, written) = (live.clone(), stop.clone(), written.clone());
        std::thread::spawn(move || {
            let mut store = Store::open(&live).unwrap();
            let mut seed = 150;
            // At least 20 games during the backups, and on until they are done.
            while seed < 170 || !stop.load(Ordering::SeqCst) {
                insert_random_game(&mut store, seed);
                seed += 1;
                written.store(seed, Ordering::SeqCst);
            }
        })
    };
    // Two backups while the writer goes on: one through the command line (another process),
    // one through the library.
    while written.load(Ordering::SeqCst) < 155 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let by_cli = dir.path().join("backup-cli.db");
    let before_cli = written.load(Ordering::SeqCst);
    let out = tara_bot(&[
        "db",
        "backup",
        "--db",
        live.to_str().unwrap(),
        by_cli.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(said.starts_with("backed up "), "{said}");
    let by_lib = dir.path().join("backup-lib.db");
    let before_lib = written.load(Ordering::SeqCst);
    let summary = tara_bot::store::backup(&live, &by_lib).unwrap();
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    let total = written.load(Ordering::SeqCst);

    let mut original = Store::open(&live).unwrap();
    let original = all_games(&mut original);
    assert_eq!(original.len() as u64, total);
    for (backup, at_least) in [(&by_cli, before_cli), (&by_lib, before_lib)] {
        let out = tara_bot(&["db", "check", "--db", backup.to_str().unwrap()]);
        let report = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success(), "{report}");
        assert!(report.contains("integrity: ok"), "{report}");
        assert!(report.ends_with("result: fine\n"), "{report}");
        assert!(
            !backup.with_extension("db-wal").exists(),
            "the backup is one file"
        );
        // Restore: a copy of the backup in place of the database.
        let restored = dir.path().join("restored.db");
        std::fs::copy(backup, &restored).unwrap();
        let mut store = Store::open(&restored).unwrap();
        let games = all_games(&mut store);
        drop(store);
        std::fs::remove_file(&restored).unwrap();
        assert!(
            games.len() as u64 >= at_least && games.len() < original.len(),
            "{} games in the backup; {at_least} before it, {} in all",
            games.len(),
            original.len()
        );
        for (i, (game, moves)) in games.iter().enumerate() {
            assert_eq!(game, &original[i].0, "game {}", game.id);
            assert_eq!(moves, &original[i].1, "moves of game {}", game.id);
            assert!(!moves.is_empty());
        }
        if backup == &by_lib {
            assert_eq!(summary.games, games.len() as i64);
            assert_eq!(
                summary.moves,
                games.iter().map(|(_, m)| m.len() as i64).sum::<i64>()
            );
        }
    }

    // An existing file is replaced only with --force; the database itself never.
    let out = tara_bot(&[
        "db",
        "backup",
        "--db",
        live.to_str().unwrap(),
        by_cli.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr).unwrap().contains("--force"));
    let out = tara_bot(&[
        "db",
        "backup",
        "--force",
        "--db",
        live.to_str().unwrap(),
        by_cli.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let mut store = Store::open(&by_cli).unwrap();
    assert_eq!(all_games(&mut store).len() as u64, total);
    let out = tara_bot(&[
        "db",
        "backup",
        "--force",
        "--db",
        live.to_str().unwrap(),
        live.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("the database itself"));
    // A file damaged where the check starts (its first page) gets a report naming the one
    // problem, not an error that sends the reader to `db check` (issue 45).
    let hurt = dir.path().join("hurt.db");
    std::fs::copy(&live, &hurt).unwrap();
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::OpenOptions::new().write(true).open(&hurt).unwrap();
        f.seek(SeekFrom::Start(100)).unwrap();
        f.write_all(&[0x13; 200]).unwrap();
    }
    let out = tara_bot(&["db", "check", "--db", hurt.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("integrity: PROBLEM: ") && said.contains("result: damaged"),
        "{said}"
    );
    assert!(!said.contains("db check` lists"), "{said}");
    // A folder is no file to back up to (issue 45: it suggested --force).
    let out = tara_bot(&[
        "db",
        "backup",
        "--db",
        live.to_str().unwrap(),
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("is a folder; name a file in it") && !err.contains("--force"),
        "{err}"
    );
    // A missing folder, a missing database: sentences naming the file.
    let nowhere = dir.path().join("no-such-folder").join("b.db");
    match tara_bot::store::backup(&live, &nowhere) {
        Err(e @ StoreError::File { .. }) => {
            assert!(e.to_string().contains("does not exist"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    let missing = dir.path().join("missing.db");
    let out = tara_bot(&["db", "check", "--db", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("there is no database file here"), "{err}");
    assert!(!missing.exists(), "a check creates no database");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Migration 12: the abort reasons the audit log kept as typed are escaped, as the bot now
/// escapes a reason when it records it (the detail is shown as Markdown); other entries, whose
/// mentions the bot wrote, are left as they are.
#[test]
fn migration_12_escapes_the_reasons_recorded_before() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v11.db");
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "INSERT INTO audit (server_id, moderator_id, action, subject, detail, created_at)
         VALUES ('s', 'm', 'abort', 'game #1 in <#c>', 'aborted; reason: *no* <@1>\nthanks', 1),
                ('s', 'm', 'audit-log', 'the audit log', 'entries are posted in <#c>', 2);
         ALTER TABLE outbox DROP COLUMN claimed_by; ALTER TABLE outbox DROP COLUMN lease_until;
         ALTER TABLE games DROP COLUMN ai_claimed_by; ALTER TABLE games DROP COLUMN ai_lease_until;
         ALTER TABLE analyses DROP COLUMN claimed_by; ALTER TABLE analyses DROP COLUMN lease_until;
         DROP TABLE notes; DROP TABLE conditionals;
         DROP TABLE league_results; DROP TABLE league_divisions; DROP TABLE league_players;
         DROP TABLE leagues; DROP TABLE ladder_games; DROP TABLE ladder_players;
         DROP TABLE ladders; ALTER TABLE tournaments DROP COLUMN forfeit_limit;
         PRAGMA user_version = 11;",
    )
    .unwrap();
    drop(conn);
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let rows = read(&mut store, |tx| tx.audit_log(&ServerId::new("s"), 10));
    assert_eq!(rows[0].detail, "entries are posted in <#c>");
    assert_eq!(
        rows[1].detail,
        tara_bot::bot::escape_markdown("aborted; reason: *no* <@1>\nthanks")
    );
}

/// Runs the binary as a user who may not write the database's folder: as `nobody` when the
/// tests run as root (whom permissions do not stop), else as the user running the tests.
/// `bin` is a copy of the binary that user may run: the build's own may be in a folder
/// only its owner can enter (a build cache in root's home, as `.ci/run` keeps it).
fn tara_bot_unprivileged(bin: &Path, args: &[&str]) -> std::process::Output {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(bin);
    cmd.args(args)
        .current_dir("/")
        .env_remove("RUST_LOG")
        .env_remove("TARA_BOT_CONFIG")
        .env_remove("TARA_BOT_DB")
        .stdin(std::process::Stdio::null());
    if std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0) {
        cmd.uid(65534).gid(65534);
    }
    cmd.output().unwrap()
}

/// `db check`, `db backup`, `export` and `tournament standings` only read: they work on a
/// WAL database that may not be written, in a folder that may not be written (a read-only
/// mount, another user's files), and leave nothing there. Where SQLite would need a file
/// there that it cannot create, the error names the folder and the missing permission.
#[test]
fn read_only_databases_are_read_by_the_commands_that_only_read() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("ro");
    std::fs::create_dir(&folder).unwrap();
    let db = folder.join("tara-bot.db");
    {
        let mut store = Store::open(&db).unwrap();
        insert_random_game(&mut store, 5);
    }
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    for (path, mode) in [
        (dir.path(), 0o755),
        (out_dir.as_path(), 0o777),
        (folder.as_path(), 0o555),
        (db.as_path(), 0o444),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let bin = dir.path().join("tara-bot");
    std::fs::copy(env!("CARGO_BIN_EXE_tara-bot"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let db_arg = db.to_str().unwrap();
    let backup = out_dir.join("b.db");
    for args in [
        vec!["db", "check", "--db", db_arg],
        vec!["db", "backup", "--db", db_arg, backup.to_str().unwrap()],
        vec!["export", "--db", db_arg],
    ] {
        let out = tara_bot_unprivileged(&bin, &args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let files: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["tara-bot.db"]);
    // A -wal file left beside it (a bot that stopped without closing the database): its
    // contents need a -shm file in the folder, which this user may not create.
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(folder.join("tara-bot.db-wal"), b"").unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = tara_bot_unprivileged(&bin, &["export", "--db", db_arg]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "error: {db_arg}: reading this WAL database needs its tara-bot.db-shm file, which \
             SQLite must create in the folder {}, but this user may not write there; give this \
             user write permission on that folder (or run the command as the bot's user)\n",
            folder.display()
        )
    );
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `--db` naming a folder, or a file in a folder that does not exist, is answered for the
/// person at the command line: which folder is missing, or that it is a folder.
#[test]
fn a_db_path_that_cannot_be_a_database_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let missing = dir.path().join("nowhere").join("x.db");
    let missing = missing.to_str().unwrap();
    let in_a_file = dir.path().join("file.txt");
    std::fs::write(&in_a_file, b"text").unwrap();
    let under_file = in_a_file.join("x.db");
    let under_file = under_file.to_str().unwrap();
    for command in [
        &["db", "check"][..],
        &["export"][..],
        &["tournament", "standings", "1"][..],
        &["db", "backup", "/tmp/unused-backup.db"][..],
    ] {
        for (db, says) in [
            (
                folder,
                format!(
                    "error: {folder}: this is a folder, not a database file; name a file in it, \
                     such as {folder}/tara-bot.db\n"
                ),
            ),
            (
                missing,
                format!(
                    "error: {missing}: the folder {folder}/nowhere does not exist; create it \
                     first or name a file in another folder\n"
                ),
            ),
            (
                under_file,
                format!(
                    "error: {under_file}: {folder}/file.txt is a file, not a folder, so no \
                     database can be in it\n"
                ),
            ),
        ] {
            let mut args = command.to_vec();
            args.extend(["--db", db]);
            let out = tara_bot(&args);
            assert_eq!(out.status.code(), Some(1), "{args:?}");
            assert_eq!(String::from_utf8(out.stderr).unwrap(), says, "{args:?}");
        }
    }
    assert!(!dir.path().join("nowhere").exists());
    // The library says the same to `local` and `run`.
    match Store::open(dir.path()) {
        Err(e @ StoreError::File { .. }) => assert!(e.to_string().contains("is a folder"), "{e}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a folder opened as a database"),
    }
}
