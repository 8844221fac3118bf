//! Work that any process sharing the database may do (owed messages, the AI's moves,
//! analyses) is taken by one process at a time, under a lease: another process leaves it alone
//! until the lease runs out (the first one died), and a restarted process takes back its own
//! at once. Two bots on one database stand for two processes. These run on SQLite here and on
//! PostgreSQL in `postgres_suite.rs`.

#[path = "../common/mod.rs"]
mod common;

use common::{ctx, Harness};
use tara_bot::ai_runner::{analyse_pending, play_pending};
use tara_bot::bot::{Bot, Clock, Command, Reply, DELIVERY_LEASE_MS, IN_FLIGHT_MS};
use tara_bot::game::Variant;
use tara_bot::store::{FirstChoice, GameId, MessageId, Store};

const MS: u64 = 60_000;

/// A process on the harness's database named `worker` (the harness's own bot becomes "a").
fn process(h: &Harness, worker: &str, seed: u64) -> Bot {
    Bot::new(Store::open(h.db()).unwrap(), h.clock.clone(), seed)
        .with_images(false)
        .with_worker(worker)
}

fn harness() -> Harness {
    let mut h = Harness::new(false);
    h.bot = process(&h, "a", 7);
    h
}

fn ids(replies: &[Reply]) -> Vec<MessageId> {
    replies.iter().map(|r| r.outbox.expect("owed")).collect()
}

#[test]
fn an_owed_message_is_delivered_by_one_process_and_taken_over_when_its_lease_runs_out() {
    let h = harness();
    let b = process(&h, "b", 8);
    h.start("aoife", "brian", "c1", "hkot-1", "challenger");
    // Stored by a, which delivers its command's answers itself: not even b's start takes them.
    assert!(b.undelivered(true).is_empty());
    assert!(b.undelivered(false).is_empty());
    h.clock.advance_ms(IN_FLIGHT_MS + 1);
    let taken = b.undelivered(false);
    assert!(!taken.is_empty(), "a did not report them: b retries them");
    assert!(h.bot.undelivered(false).is_empty(), "b holds them now");
    assert!(h.bot.undelivered(true).is_empty(), "also when a restarts");
    // b dies before reporting: once its lease runs out, a delivers them.
    h.clock.advance_ms(DELIVERY_LEASE_MS + 1);
    let again = h.bot.undelivered(false);
    assert_eq!(ids(&again), ids(&taken));
    for id in ids(&again) {
        h.bot.delivered(id);
    }
    h.clock.advance_ms(DELIVERY_LEASE_MS + 1);
    assert!(b.undelivered(true).is_empty() && h.bot.undelivered(true).is_empty());
}

#[test]
fn a_failed_delivery_ends_the_lease_and_a_restarted_process_takes_back_its_own() {
    let mut h = harness();
    h.start("aoife", "brian", "c1", "hkot-1", "challenger");
    h.clock.advance_ms(IN_FLIGHT_MS + 1);
    let mine = h.bot.undelivered(false);
    assert!(!mine.is_empty());
    // a restarts (the same worker name): it takes back at once what it held; b does not.
    h.bot = process(&h, "a", 9);
    let b = process(&h, "b", 8);
    assert!(b.undelivered(true).is_empty());
    assert_eq!(ids(&h.bot.undelivered(true)), ids(&mine));
    // A failed delivery ends the lease: after its backoff, whoever retries first has it.
    let first = mine[0].outbox.unwrap();
    h.bot.delivery_failed(first, "503 from the platform", false);
    h.clock.advance_ms(10 * 60_000);
    let retried = b.undelivered(false);
    assert!(ids(&retried).contains(&first), "b retries it");
}

#[test]
fn a_restarted_process_leaves_the_answers_of_its_new_commands_to_them() {
    let mut h = harness();
    h.start("aoife", "brian", "c1", "hkot-1", "challenger");
    h.clock.advance_ms(1_000);
    let before = ids(&h.bot.undelivered(true));
    assert!(!before.is_empty());
    // a restarts (the same worker name), and a command comes in before its start-up sweep
    // runs: its answers are its own to send, not the sweep's (which would post them twice).
    h.bot = process(&h, "a", 9);
    let started = h.clock.now_ms();
    h.clock.advance_ms(5);
    h.start("cian", "deirdre", "c2", "hkot-1", "challenger");
    let swept = ids(&h
        .bot
        .undelivered_besides(Some(started - 1), &Default::default()));
    assert_eq!(swept, before, "what the earlier run left, and only that");
    // Once in its command's hands longer than that may take, the next sweeps retry them too.
    h.clock.advance_ms(IN_FLIGHT_MS + 1);
    let later = ids(&h.bot.undelivered(false));
    assert!(later.len() > before.len(), "{later:?}");
    assert!(before.iter().all(|id| later.contains(id)));
}

/// A game against the AI at level 1 where the AI is to move; its id.
fn ai_to_move(h: &Harness) -> GameId {
    let r = h.send(
        "aoife",
        "ai",
        Command::PlayAi {
            variant: Variant::SacredHill1,
            level: Some(1),
            first: Some(FirstChoice::Opponent),
            scoring: None,
            thread: None,
        },
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let turns = h.bot.ai_turns();
    assert_eq!(turns.len(), 1, "the AI moves first");
    turns[0].game
}

#[test]
fn the_ais_move_is_searched_by_one_process_at_a_time() {
    let h = harness();
    let b = process(&h, "b", 8);
    let game = ai_to_move(&h);
    // The AI moves first: its move is move 0.
    let ply = 0;
    assert!(
        !h.bot.claim_ai_turn(game, 1, 1_000),
        "a search of a move not yet due is never claimed"
    );
    assert!(h.bot.claim_ai_turn(game, ply, 1_000));
    assert!(!b.claim_ai_turn(game, ply, 1_000), "a searches it");
    assert!(h.bot.claim_ai_turn(game, ply, 1_000), "a holds it still");
    assert!(play_pending(&b, MS).is_empty(), "b leaves a's search alone");
    // a dies: after its lease (two searches' time and a margin) b plays the move.
    h.clock.advance_ms(2 * 1_000 + 30_000 + 1);
    let played = play_pending(&b, MS);
    assert!(!played.is_empty(), "b plays the AI's move");
    assert!(h.bot.ai_turns().is_empty(), "the person is to move");
    // The game moved on: a search of its old turn is never claimed again (a process that
    // read the turn before the move would search it for nothing).
    assert!(!b.claim_ai_turn(game, ply, 1_000), "move 0 is played");
    // The move released the claim: the next AI turn of the game is anyone's.
    assert!(h.bot.claim_ai_turn(game, 1, 1_000));
    h.bot.release_ai_turn(game);
    assert!(b.claim_ai_turn(game, 1, 1_000));
}

#[test]
fn an_analysis_runs_in_one_process_at_a_time() {
    let h = harness();
    let b = process(&h, "b", 8);
    let g = h.start("aoife", "brian", "c1", "sacred-hill-1", "challenger");
    h.opening("c1");
    let r = h.send(
        "aoife",
        "c1",
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let r = h.bot.handle(
        &ctx("brian", "c1"),
        Command::Analyse {
            id: g.id,
            level: Some(3),
        },
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let job = h.bot.pending_analyses()[0].id;
    assert!(h.bot.claim_analysis(job, 60_000));
    assert!(!b.claim_analysis(job, 60_000));
    assert!(
        analyse_pending(&b, 50).is_empty(),
        "b leaves a's analysis alone"
    );
    h.clock.advance_ms(60_001);
    let done = analyse_pending(&b, 50);
    assert!(
        done.iter().any(|r| r.plain_text().contains("Analysis")),
        "b runs it once a's lease has run out: {:?}",
        done.iter().map(Reply::plain_text).collect::<Vec<_>>()
    );
    assert!(h.bot.pending_analyses().is_empty());
}
