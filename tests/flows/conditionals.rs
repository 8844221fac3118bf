//! Conditional moves (`/conditional`) through the bot core: a stored line's reply is played in
//! the transaction of the move it foresaw, announced as a conditional move; lines form a tree,
//! are checked with the engine when stored, stay private, and are dropped when the game departs
//! from them, on a takeback and when the game ends. The property test plays random games with
//! random stored lines and checks each reply against the engine.

#[path = "../common/mod.rs"]
mod common;

use common::{stored, texts, Harness};
use std::collections::BTreeMap;
use tara_bot::ai_runner::{find_move, play_pending};
use tara_bot::bot::{Command, DrawAnswer, Reply, TakebackAnswer};
use tara_bot::console::{parse_line, Action};
use tara_bot::game::playout::Rng;
use tara_bot::game::{Move, Position, Variant};
use tara_bot::store::FirstChoice;
use tara_bot::store::{GameId, Store};

fn add(h: &Harness, who: &str, channel: &str, line: &str) -> Reply {
    private(h.send(
        who,
        channel,
        Command::ConditionalAdd {
            line: line.into(),
            game: None,
        },
    ))
}

fn list(h: &Harness, who: &str, channel: &str) -> Reply {
    private(h.send(who, channel, Command::ConditionalList { game: None }))
}

/// The one answer, which must be private and ping nobody.
fn private(r: Vec<Reply>) -> Reply {
    assert_eq!(r.len(), 1, "one answer: {}", texts(&r));
    assert!(r[0].ephemeral, "private: {}", r[0].plain_text());
    assert!(r[0].mentions.is_empty(), "pings nobody");
    r.into_iter().next().unwrap()
}

/// The stored lines of a game, through a separate connection: (user, from ply, line).
fn lines(h: &Harness, game: GameId) -> Vec<(String, u32, String)> {
    let mut s = Store::open(h.db()).unwrap();
    s.read(|tx| tx.conditionals(game))
        .unwrap()
        .into_iter()
        .map(|r| (r.user_id.to_string(), r.from_ply, r.line))
        .collect()
}

/// A line of `n` plies from `pos`: at each ply the `pick`-th legal move (wrapping), `pass`
/// where it is forced.
fn line_from(pos: &Position, picks: &[usize]) -> Vec<Move> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for &k in picks {
        let legal = p.legal_moves();
        let m = legal[k % legal.len()];
        p.play(m).unwrap();
        out.push(m);
    }
    out
}

fn written(line: &[Move]) -> String {
    line.iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A game of High Kings (Aoife first) after Aoife's first move, with no forced pass near.
fn started(h: &Harness) -> (GameId, Position) {
    let g = h.start("aoife", "brian", "c1", "hkot-1", "challenger");
    let r = h.mv("aoife", "c1", "D4");
    assert!(!r[0].ephemeral, "{}", texts(&r));
    let (_, _, pos) = stored(&h.db(), g.id);
    (g.id, pos)
}

#[test]
fn a_foreseen_move_is_answered_at_once_and_the_tree_follows_the_game() {
    let h = Harness::new(false);
    let (game, pos) = started(&h);
    // Three lines: two sharing their first exchange, one on another branch.
    let a = line_from(&pos, &[0, 0, 0, 0]);
    let b = line_from(&pos, &[0, 0, 1, 0]);
    let c = line_from(&pos, &[2, 0]);
    assert!(!a.contains(&Move::Pass) && !b.contains(&Move::Pass) && !c.contains(&Move::Pass));
    for (line, said) in [
        (&a, "Stored in game"),
        (&b, "Stored in game"),
        (&c, "Stored in game"),
    ] {
        let r = add(&h, "aoife", "c1", &written(line));
        assert!(r.plain_text().contains(said), "{}", r.plain_text());
    }
    // The same line again, or its beginning, adds nothing.
    let r = add(&h, "aoife", "c1", &written(&a[..2]));
    assert!(
        r.plain_text().contains("had this line already"),
        "{}",
        r.plain_text()
    );
    assert_eq!(lines(&h, game).len(), 3);

    // The tree, privately, with the board of the main line.
    let r = list(&h, "aoife", "c1");
    let text = r.plain_text();
    assert!(text.contains("3 lines"), "{text}");
    assert!(
        text.contains(&format!("if `{}`, `{}`", a[0], a[1])),
        "{text}"
    );
    assert!(
        text.contains(&format!("then if `{}`, `{}`", a[2], a[3])),
        "{text}"
    );
    assert!(
        text.contains(&format!("then if `{}`, `{}`", b[2], b[3])),
        "{text}"
    );
    assert!(
        text.contains(&format!("if `{}`, `{}`", c[0], c[1])),
        "{text}"
    );
    // The shared exchange is written once.
    assert_eq!(
        text.matches(&format!("if `{}`, `{}`", a[0], a[1])).count(),
        1,
        "{text}"
    );
    assert!(
        r.board_text.is_some() || r.image.is_some(),
        "a board of the main line"
    );
    // Brian sees none of it.
    let r = list(&h, "brian", "c1");
    assert!(
        r.plain_text().contains("no conditional moves"),
        "{}",
        r.plain_text()
    );

    // Brian plays the first line's move: Aoife's reply follows at once, announced.
    let r = h.mv("brian", "c1", &a[0].to_string());
    assert_eq!(r.len(), 2, "{}", texts(&r));
    assert!(!r[0].ephemeral && !r[1].ephemeral);
    assert!(
        !r[0].plain_text().contains("your move"),
        "{}",
        r[0].plain_text()
    );
    assert!(
        r[1].plain_text().contains("(played by conditional move)"),
        "{}",
        r[1].plain_text()
    );
    assert!(
        r[1].mentions.iter().any(|m| m == "brian"),
        "Brian is pinged"
    );
    let (_, moves, _) = stored(&h.db(), game);
    assert_eq!(moves[1..], [a[0].to_string(), a[1].to_string()]);
    // The other branch is dropped; the two that went on remain, from the new position.
    let r = list(&h, "aoife", "c1");
    assert!(r.plain_text().contains("2 lines"), "{}", r.plain_text());
    assert!(!r.plain_text().contains(&format!("`{}`", c[0])) || c[0] == a[2] || c[0] == b[2]);

    // Brian departs from both: nothing is played for Aoife, and her lines are gone.
    let (_, _, now) = stored(&h.db(), game);
    let other = now
        .legal_moves()
        .iter()
        .copied()
        .find(|m| *m != a[2] && *m != b[2])
        .unwrap();
    let r = h.mv("brian", "c1", &other.to_string());
    assert_eq!(r.len(), 1, "{}", texts(&r));
    assert!(
        r[0].mentions.iter().any(|m| m == "aoife"),
        "Aoife is to move"
    );
    assert!(lines(&h, game).is_empty());
}

#[test]
fn bad_lines_are_refused_with_the_reason() {
    let h = Harness::new(false);
    let (game, pos) = started(&h);
    let ok = line_from(&pos, &[0, 0]);
    let cases: Vec<(String, &str)> = vec![
        ("".into(), "moves separated by spaces"),
        (
            "Q9 D5".into(),
            "Move 1 of the line (your opponent's expected move)",
        ),
        (format!("{} {}", ok[0], ok[0]), "is not legal after"),
        (ok[0].to_string(), "ends with your opponent's move"),
        (
            written(&line_from(&pos, &[0; 31])),
            "at most 30 moves; this one has 31",
        ),
    ];
    for (line, why) in cases {
        let r = add(&h, "aoife", "c1", &line);
        assert!(r.plain_text().contains(why), "{line:?}: {}", r.plain_text());
    }
    // Not on one's own turn, not by a spectator.
    let r = add(&h, "brian", "c1", &written(&ok));
    assert!(
        r.plain_text().contains("It is your move"),
        "{}",
        r.plain_text()
    );
    let r = add(&h, "ciara", "c1", &written(&ok));
    assert!(
        r.plain_text().contains("Only the players"),
        "{}",
        r.plain_text()
    );
    // One reply per position.
    add(&h, "aoife", "c1", &written(&ok));
    let other = line_from(&pos, &[0, 1]);
    let r = add(&h, "aoife", "c1", &written(&other));
    assert!(
        r.plain_text()
            .contains(&format!("you already reply `{}`", ok[1])),
        "{}",
        r.plain_text()
    );
    // At most 30 lines.
    let firsts = pos.legal_moves().len();
    assert!(firsts > 30, "enough first moves");
    for k in 1..30 {
        let r = add(&h, "aoife", "c1", &written(&line_from(&pos, &[k, 0])));
        assert!(r.plain_text().contains("Stored"), "{k}: {}", r.plain_text());
    }
    let r = add(&h, "aoife", "c1", &written(&line_from(&pos, &[30, 0])));
    assert!(r.plain_text().contains("30 lines"), "{}", r.plain_text());
    assert_eq!(lines(&h, game).len(), 30);
    // Nothing was stored by a refusal, and clear removes all.
    let r = private(h.send("aoife", "c1", Command::ConditionalClear { game: None }));
    assert!(r.plain_text().contains("30 lines"), "{}", r.plain_text());
    assert!(lines(&h, game).is_empty());
    // In a finished game.
    h.resign("brian", "c1");
    let r = add(&h, "aoife", "c1", &written(&ok));
    assert!(r.plain_text().contains("is over"), "{}", r.plain_text());
    let r = add(&h, "aoife", "elsewhere", &written(&ok));
    assert!(
        r.plain_text().contains("no game in this channel"),
        "{}",
        r.plain_text()
    );
}

#[test]
fn lines_are_dropped_on_a_takeback_a_draw_and_the_end() {
    // A takeback.
    let h = Harness::new(false);
    let (game, pos) = started(&h);
    add(&h, "aoife", "c1", &written(&line_from(&pos, &[0, 0])));
    h.send(
        "aoife",
        "c1",
        Command::Takeback {
            answer: None,
            game: None,
        },
    );
    let r = h.send(
        "brian",
        "c1",
        Command::Takeback {
            answer: Some(TakebackAnswer::Allow),
            game: None,
        },
    );
    assert!(
        r[0].plain_text().contains("allowed the takeback"),
        "{}",
        texts(&r)
    );
    assert!(lines(&h, game).is_empty());

    // A draw agreed, and a resignation.
    for end in ["draw", "resign"] {
        let h = Harness::new(false);
        let (game, pos) = started(&h);
        h.mv("brian", "c1", &pos.legal_moves()[0].to_string());
        let (_, _, pos) = stored(&h.db(), game);
        add(&h, "brian", "c1", &written(&line_from(&pos, &[0, 0])));
        assert_eq!(lines(&h, game).len(), 1);
        if end == "draw" {
            h.send(
                "aoife",
                "c1",
                Command::Draw {
                    answer: None,
                    game: None,
                },
            );
            let r = h.send(
                "brian",
                "c1",
                Command::Draw {
                    answer: Some(DrawAnswer::Accept),
                    game: None,
                },
            );
            assert!(texts(&r).contains("draw"), "{}", texts(&r));
        } else {
            h.resign("aoife", "c1");
        }
        assert!(lines(&h, game).is_empty(), "{end}");
    }
}

#[test]
fn the_console_reads_the_subcommands() {
    let parsed = parse_line(r#"/conditional add line:"E3 D5 F2 C4""#).unwrap();
    match parsed {
        Action::Run(Command::ConditionalAdd { line, .. }) => assert_eq!(line, "E3 D5 F2 C4"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parse_line("/conditional list").unwrap(),
        Action::Run(Command::ConditionalList { game: None })
    ));
    assert!(matches!(
        parse_line("/conditional clear").unwrap(),
        Action::Run(Command::ConditionalClear { game: None })
    ));
}

#[test]
fn random_games_with_random_lines_play_each_reply_exactly_when_its_line_matches() {
    let variants = [
        "hkot-1",
        "hkot-2",
        "sacred-hill-1",
        "sacred-hill-2",
        "ard-ri",
    ];
    let mut replies = 0;
    let mut departures = 0;
    let mut with_pass = 0;
    for seed in 1..=if common::on_postgres() { 4 } else { 15 } {
        let h = Harness::new(false);
        let variant = variants[seed as usize % variants.len()];
        let g = h.start("aoife", "brian", "c1", variant, "challenger");
        let mut rng = Rng::new(seed);
        // The model: each player's lines, each with the ply it starts at.
        let mut model: BTreeMap<String, Vec<(usize, Vec<Move>)>> = BTreeMap::new();
        let mut known = 0usize;
        let mut sent: Option<(usize, Move)> = None;
        let mut turns = 0;
        loop {
            let (row, moves, pos) = stored(&h.db(), g.id);
            // Every ply since the last look: the driver's, a forced pass, or a reply the
            // model foresaw, exactly when it foresaw one.
            let mut p = Position::new(row.options);
            for (ply, m) in moves.iter().enumerate() {
                let on_move = p.to_move().map(|s| row.seats[s].to_string());
                let mv = p.parse_move(m).unwrap();
                if ply >= known {
                    let due = on_move.as_ref().and_then(|who| {
                        model.get(who).and_then(|ls| {
                            ls.iter().find_map(|(from, l)| {
                                let since = &played(&moves[..ply], row.options)[*from..];
                                (l.len() > since.len() && l.starts_with(since))
                                    .then(|| l[since.len()])
                            })
                        })
                    });
                    if sent.map(|(at, _)| at) == Some(ply) {
                        // The driver's own move: no line had a reply due before it.
                        assert_eq!(Some((ply, mv)), sent, "seed {seed}");
                        assert_eq!(due, None, "seed {seed} ply {ply}: a reply was due");
                    } else if p.legal_moves().as_slice() == [Move::Pass] {
                        assert_eq!(mv, Move::Pass, "seed {seed} ply {ply}: a forced pass");
                    } else {
                        // Played for a player: exactly the reply a line foresaw.
                        assert_eq!(Some(mv), due, "seed {seed} ply {ply}: not foreseen");
                        replies += 1;
                    }
                }
                p.play(mv).unwrap();
            }
            known = moves.len();
            // Lines the game departed from or played out are gone, in the model too.
            let now_played = played(&moves, row.options);
            for ls in model.values_mut() {
                let before = ls.len();
                ls.retain(|(from, l)| {
                    let since = &now_played[*from..];
                    l.len() > since.len() && l.starts_with(since)
                });
                departures += before - ls.len();
            }
            let Some(side) = pos.to_move() else { break };
            turns += 1;
            if turns > 400 {
                break;
            }
            let mover = row.seats[side].to_string();
            let waiting = row.seats[side.opponent()].to_string();
            // The player waiting stores a few random lines, which may include forced passes.
            if rng.below(3) == 0 {
                for _ in 0..1 + rng.below(3) {
                    let n = 2 * (1 + rng.below(3));
                    let picks: Vec<usize> = (0..n).map(|_| rng.below(1000)).collect();
                    let mut p = pos.clone();
                    let mut line = Vec::new();
                    for k in picks {
                        if p.outcome().is_some() {
                            break;
                        }
                        let legal = p.legal_moves();
                        let m = legal[k % legal.len()];
                        p.play(m).unwrap();
                        line.push(m);
                    }
                    if line.len() % 2 == 1 || line.is_empty() {
                        continue;
                    }
                    let r = add(&h, &waiting, "c1", &written(&line));
                    let text = r.plain_text();
                    let from = now_played.len();
                    let mine = model.entry(waiting.clone()).or_default();
                    if text.starts_with("Stored") {
                        with_pass += usize::from(line.contains(&Move::Pass));
                        mine.retain(|(_, l)| !line.starts_with(&l[now_played.len() - from..]));
                        mine.push((from, line));
                    } else if text.contains("you already reply") {
                        // A real conflict: a stored line replies otherwise at an odd ply.
                        assert!(mine.iter().any(|(f, l)| {
                            let l = &l[now_played.len() - f..];
                            let same = l.iter().zip(&line).take_while(|(a, b)| a == b).count();
                            same < l.len() && same % 2 == 1
                        }));
                    } else {
                        assert!(
                            text.contains("had this line already") || text.contains("30 lines"),
                            "seed {seed}: {text}"
                        );
                    }
                }
            }
            // The player on move moves: half the time as the waiting player foresaw.
            let legal = pos.legal_moves();
            let foreseen: Vec<Move> = model
                .get(&waiting)
                .map(|ls| {
                    ls.iter()
                        .filter_map(|(from, l)| l.get(now_played.len() - from).copied())
                        .collect()
                })
                .unwrap_or_default();
            let m = if !foreseen.is_empty() && rng.below(2) == 0 {
                foreseen[rng.below(foreseen.len())]
            } else {
                legal[rng.below(legal.len())]
            };
            sent = Some((now_played.len(), m));
            let r = if m == Move::Pass {
                h.send(&mover, "c1", Command::Pass { game: None })
            } else {
                h.mv(&mover, "c1", &m.to_string())
            };
            assert!(!r[0].ephemeral, "seed {seed}: {}", texts(&r));
        }
        // Whatever the end, no line is left.
        assert!(lines(&h, g.id).is_empty() || stored(&h.db(), g.id).2.outcome().is_none());
    }
    assert!(replies > 20, "replies played: {replies}");
    assert!(departures > 20, "lines departed from: {departures}");
    assert!(
        with_pass > 0 || common::on_postgres(),
        "lines with a forced pass: {with_pass}"
    );
}

/// The moves of a stored game, read.
fn played(moves: &[String], options: tara_bot::game::GameOptions) -> Vec<Move> {
    let mut p = Position::new(options);
    moves
        .iter()
        .map(|m| {
            let mv = p.parse_move(m).unwrap();
            p.play(mv).unwrap();
            mv
        })
        .collect()
}

/// A generous time limit: level 1 stops at its playout budget long before it, so its move is
/// the same each time it is searched.
const MS: u64 = 60_000;

#[test]
fn lines_work_against_the_ai() {
    let h = Harness::new(false);
    let r = h.send(
        "aoife",
        "c1",
        Command::PlayAi {
            variant: Variant::Hkot1,
            level: Some(1),
            first: Some(FirstChoice::Challenger),
            scoring: None,
            thread: None,
        },
    );
    assert!(!r[0].ephemeral, "{}", texts(&r));
    let g = common::active(&h.db(), "c1").unwrap();
    h.mv("aoife", "c1", "D4");
    // The AI's move, found as the runner will find it; a line answering it, and another.
    let turn = h.bot.ai_turns().pop().expect("the AI is to move");
    let expected = find_move(&turn, MS);
    let pos = turn.position.clone();
    let reply = line_from(
        &{
            let mut p = pos.clone();
            p.play(expected).unwrap();
            p
        },
        &[3],
    );
    let line = [expected, reply[0]];
    let r = add(&h, "aoife", "c1", &written(&line));
    assert!(r.plain_text().contains("Stored"), "{}", r.plain_text());
    let elsewhere = pos
        .legal_moves()
        .iter()
        .copied()
        .find(|m| *m != expected)
        .unwrap();
    add(
        &h,
        "aoife",
        "c1",
        &written(&line_from(
            &pos,
            &[
                pos.legal_moves()
                    .iter()
                    .position(|m| *m == elsewhere)
                    .unwrap(),
                0,
            ],
        )),
    );
    let replies = play_pending(&h.bot, MS);
    let (_, moves, _) = stored(&h.db(), g.id);
    assert_eq!(moves[1..3], [expected.to_string(), reply[0].to_string()]);
    let text = texts(&replies);
    assert!(text.contains("(played by conditional move)"), "{text}");
    // The AI was to move again, and moved: the runner looks again after each move.
    assert_eq!(moves.len(), 4, "{moves:?}");
    assert!(lines(&h, g.id).is_empty());
}
