//! The real bot (`tara-bot run`, as a child process) against a fake Discord on 127.0.0.1:
//! command registration, whole games of hkot-1 and Ard Rí played through slash commands and
//! buttons, ephemeral errors, PNG attachments, allowed mentions, forced passes and scoring, a
//! thread per challenge, autocomplete, a gateway disconnect and a bot restart mid-game; and
//! Discord's faults: failed and lost sends with the bot killed in between (the outbox), rate
//! limits, server errors, missing permissions, closed DMs, a locked database.

mod common;
use tara_bot::fake_discord;
use tara_bot::store::UserSetting;

use common::{forces_a_pass, player_moves};
use fake_discord::players::{
    active_games, play_moves, play_out, subcommand, told, told_where, Played,
};
use fake_discord::{FakeDiscord, Fault, Invoker, Recorded};
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Child, Command as Proc};
use std::time::Duration;
use tara_bot::game::BySide;
use tara_bot::game::{GameOptions, Move, Position, Side, Variant};
use tara_bot::store::ChallengeId;
use tara_bot::store::{ChannelId, ServerId, UserId};
use tara_bot::store::{GameId, TournamentId};

const T: Duration = Duration::from_secs(20);
const ALICE: (u64, &str) = (1_000_000_000_000_000_001, "aoife");
const BOB: (u64, &str) = (1_000_000_000_000_000_002, "brian");
const CH: u64 = FakeDiscord::CHANNEL_ID;

/// The bot process, killed when dropped.
struct BotProcess(Child);

impl Drop for BotProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_bot(fake: &FakeDiscord, dir: &Path) -> BotProcess {
    spawn_bot_logging(fake, dir, "warn,tara_bot=debug")
}

/// The bot with `RUST_LOG` set to `rust_log`.
fn spawn_bot_logging(fake: &FakeDiscord, dir: &Path, rust_log: &str) -> BotProcess {
    spawn_bot_env(fake, dir, &[("RUST_LOG", rust_log)])
}

/// The bot with these environment variables set over the defaults (the rate limit is off
/// unless `TARA_BOT_RATE_LIMIT` is given).
fn spawn_bot_env(fake: &FakeDiscord, dir: &Path, env: &[(&str, &str)]) -> BotProcess {
    spawn_bot_run(fake, dir, env, &[])
}

/// The bot with these environment variables and `tara-bot run` arguments.
fn spawn_bot_run(
    fake: &FakeDiscord,
    dir: &Path,
    env: &[(&str, &str)],
    args: &[&str],
) -> BotProcess {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("bot.log"))
        .unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_tara-bot"));
    let child = fake_discord::tara_bot_run(exe, &fake.proxy_url(), dir)
        .args(args)
        .env("TARA_BOT_DB", dir.join("tara.db"))
        .env("RUST_LOG", "warn,tara_bot=debug")
        .envs(env.iter().copied())
        .stderr(log)
        .spawn()
        .expect("start tara-bot run");
    BotProcess(child)
}

/// A fake Discord and the bot connected to it, on a fresh database.
async fn boot() -> (tempfile::TempDir, FakeDiscord, BotProcess) {
    boot_env(&[]).await
}

/// [`boot`] with these environment variables set for the bot ([`spawn_bot_env`]).
async fn boot_env(env: &[(&str, &str)]) -> (tempfile::TempDir, FakeDiscord, BotProcess) {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    let bot = spawn_bot_env(&fake, dir.path(), env);
    assert!(
        fake.wait_ready(T).await,
        "no READY: {}",
        bot_log(dir.path())
    );
    (dir, fake, bot)
}

fn bot_log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("bot.log")).unwrap_or_default()
}

/// Decodes a PNG attachment; returns its size.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let reader = dec.read_info().expect("a PNG");
    let info = reader.info();
    (info.width, info.height)
}

fn allowed_users(r: &Recorded) -> Vec<String> {
    let am = r
        .data()
        .or(r.json.as_ref())
        .map(|d| d["allowed_mentions"].clone())
        .unwrap_or(Value::Null);
    let mut users: Vec<String> = am["users"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|u| u.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    users.sort();
    users
}

fn id_str(u: (u64, &str)) -> String {
    u.0.to_string()
}

/// Sends `/move text` as `who` in `channel`; the interaction's id.
async fn send_move(fake: &FakeDiscord, who: (u64, &str), channel: u64, text: &str) -> u64 {
    fake.slash(
        who,
        channel,
        "move",
        json!([{"name": "move", "type": 3, "value": text}]),
    )
    .await
}

async fn slash_move(fake: &FakeDiscord, who: (u64, &str), text: &str) -> (u64, Recorded) {
    let id = send_move(fake, who, CH, text).await;
    let r = fake
        .response(id, T)
        .await
        .unwrap_or_else(|| panic!("no answer to /move {text}"));
    (id, r)
}

/// Challenges (in the channel itself) and accepts with the button; returns the game-start
/// follow-up.
async fn start_game(fake: &FakeDiscord, variant: &str) -> Recorded {
    let opponent = fake.user_option("opponent", BOB);
    let id = fake
        .slash(
            ALICE,
            CH,
            "challenge",
            json!([
                opponent,
                {"name": "variant", "type": 3, "value": variant},
                {"name": "first", "type": 3, "value": "me"},
                {"name": "thread", "type": 5, "value": false}
            ]),
        )
        .await;
    let r = fake.response(id, T).await.expect("challenge answered");
    assert_eq!(r.callback_type(), Some(4));
    assert!(!r.ephemeral());
    assert!(
        r.content().unwrap().contains("challenges"),
        "{:?}",
        r.content()
    );
    assert_eq!(
        allowed_users(&r),
        vec![id_str(BOB)],
        "only the opponent is pinged"
    );
    let ids = r.custom_ids();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids[0].starts_with("accept:"));
    // Alice cannot accept her own challenge: a private refusal, buttons stay.
    let wrong = fake.button(ALICE, CH, fake.message_from(&r), &ids[0]).await;
    let w = fake.response(wrong, T).await.unwrap();
    assert!(w.ephemeral(), "{:?}", w.content());
    let click = fake.button(BOB, CH, fake.message_from(&r), &ids[0]).await;
    let upd = fake.response(click, T).await.expect("button answered");
    assert_eq!(
        upd.callback_type(),
        Some(7),
        "the challenge loses its buttons"
    );
    // ... and says it was accepted instead of asking for it, pinging nobody again.
    let text = upd.content().unwrap_or_default();
    assert!(
        text.contains("accepted, game") && !text.contains("/accept"),
        "{text}"
    );
    let am = &upd.data().expect("an update with data")["allowed_mentions"];
    assert!(am.is_object() && allowed_users(&upd).is_empty(), "{am}");
    let fups = fake.wait_followups(click, 1, T).await;
    let start = fups.into_iter().next().expect("game start follow-up");
    assert!(
        start.content().unwrap().contains("Game on!"),
        "{:?}",
        start.content()
    );
    assert_eq!(start.files.len(), 1);
    assert_eq!(png_size(&start.files[0].1), (600, 690));
    assert_eq!(allowed_users(&start), vec![id_str(ALICE)]);
    start
}

/// The bot's first post to `channel` whose text contains `needle`, waiting for it.
async fn channel_post_containing(
    fake: &FakeDiscord,
    channel: u64,
    needle: &str,
) -> Option<Recorded> {
    let path = format!("/api/v10/channels/{channel}/messages");
    fake.wait_request(
        |r| r.method == "POST" && r.path == path && r.content().is_some_and(|c| c.contains(needle)),
        T,
    )
    .await
}

/// Interruptions during a game: a gateway disconnect, and a bot restart (kill, start again on
/// the same database), before the move with the given index.
#[derive(Default)]
struct Interruptions<'a> {
    disconnect_at: Option<usize>,
    restart_at: Option<(usize, &'a mut BotProcess, &'a Path)>,
}

/// Plays `moves` by whoever is on move; returns the answers and their latencies (ms).
async fn play(
    fake: &FakeDiscord,
    options: GameOptions,
    moves: &[Move],
    mut interrupt: Interruptions<'_>,
) -> (Vec<Recorded>, Vec<f64>) {
    let mut mirror = Position::new(options);
    let mut answers = Vec::new();
    let mut latencies = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        if interrupt.disconnect_at == Some(i) {
            fake.drop_gateway().await;
        }
        if let Some((at, bot, dir)) = interrupt.restart_at.as_mut() {
            if *at == i {
                let _ = bot.0.kill();
                let _ = bot.0.wait();
                **bot = spawn_bot(fake, dir);
                assert!(
                    fake.wait_ready_count(2, T).await,
                    "no READY after the restart"
                );
            }
        }
        let side = mirror.to_move().unwrap();
        let who = if side.index() == 0 { ALICE } else { BOB };
        let other = if side.index() == 0 { BOB } else { ALICE };
        if i % 7 == 3 {
            // The wrong player is refused privately.
            let (_, w) = slash_move(fake, other, &m.to_string()).await;
            assert!(w.ephemeral(), "{:?}", w.content());
            assert!(allowed_users(&w).is_empty());
        }
        let (id, r) = slash_move(fake, who, &m.to_string()).await;
        assert!(!r.ephemeral(), "move {i} ({m}) refused: {:?}", r.content());
        latencies.push(
            r.at.duration_since(fake.injected_at(id).unwrap())
                .as_secs_f64()
                * 1000.0,
        );
        assert_eq!(r.files.len(), 1, "a board image with every move");
        assert_eq!(png_size(&r.files[0].1), (600, 690));
        mirror.play(*m).unwrap();
        while mirror.outcome().is_none() && mirror.legal_moves().as_slice() == [Move::Pass] {
            mirror.play(Move::Pass).unwrap();
        }
        match mirror.to_move() {
            Some(s) => {
                let next = if s.index() == 0 { ALICE } else { BOB };
                assert_eq!(
                    allowed_users(&r),
                    vec![id_str(next)],
                    "only the next player"
                );
            }
            None => {
                let mut both = vec![id_str(ALICE), id_str(BOB)];
                both.sort();
                assert_eq!(allowed_users(&r), both, "the end pings both players");
            }
        }
        answers.push(r);
    }
    assert!(mirror.outcome().is_some());
    (answers, latencies)
}

fn report(name: &str, mut lat: Vec<f64>) {
    lat.sort_by(f64::total_cmp);
    let p = |q: f64| lat[((lat.len() as f64 - 1.0) * q).round() as usize];
    eprintln!(
        "{name}: {} moves with images, interaction to response: median {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        lat.len(),
        p(0.5),
        p(0.99),
        p(1.0)
    );
    // Discord's hard limit for a first response.
    assert!(
        p(1.0) < 3000.0,
        "a response took longer than Discord allows"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hkot_1_through_discord_with_a_disconnect_and_a_restart() {
    let (dir, fake, mut bot) = boot().await;

    // Command registration: every command, typed options, autocomplete on /move.
    let cmds = fake
        .registered_commands(T)
        .await
        .expect("commands registered");
    let names: Vec<&str> = cmds
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    // Exactly the table's commands, each with the table's offered (not hidden) options, then
    // the groups of subcommands (`/tournament`), each with one SUB_COMMAND per entry.
    let all = tara_bot::bot::commands::table();
    let table: Vec<_> = all
        .iter()
        .filter(|c| c.subcommand().is_none())
        .cloned()
        .collect();
    let groups = tara_bot::bot::commands::GROUPS;
    assert_eq!(
        names,
        table
            .iter()
            .map(|c| c.name)
            .chain(groups.iter().map(|g| g.0))
            .collect::<Vec<_>>(),
        "registered commands"
    );
    for (g, c) in groups.iter().zip(&cmds.as_array().unwrap()[table.len()..]) {
        let subs: Vec<&str> = c["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["name"].as_str().unwrap())
            .collect();
        let expected: Vec<&str> = all
            .iter()
            .filter_map(|c| c.subcommand().filter(|s| s.0 == g.0).map(|s| s.1))
            .collect();
        assert_eq!(subs, expected, "subcommands of /{}", g.0);
    }
    for (c, spec) in cmds.as_array().unwrap().iter().zip(&table) {
        let opts: Vec<&str> = c["options"]
            .as_array()
            .map(|a| a.iter().map(|o| o["name"].as_str().unwrap()).collect())
            .unwrap_or_default();
        // In the table's order, except that Discord wants the required ones first.
        let offered: Vec<&str> = spec
            .options
            .iter()
            .filter(|o| !o.hidden && o.required)
            .chain(spec.options.iter().filter(|o| !o.hidden && !o.required))
            .map(|o| o.name)
            .collect();
        assert_eq!(opts, offered, "options of /{}", spec.name);
        let required: Vec<bool> = c["options"]
            .as_array()
            .map(|a| a.iter().map(|o| o["required"] == json!(true)).collect())
            .unwrap_or_default();
        assert!(
            required.windows(2).all(|w| w[0] || !w[1]),
            "/{}: a required option after an optional one",
            spec.name
        );
    }
    for n in [
        "challenge",
        "accept",
        "decline",
        "cancel",
        "move",
        "pass",
        "resign",
        "board",
        "game",
        "record",
        "status",
        "games",
        "rules",
        "help",
        "abort",
        "takeback",
        "vacation",
        "settings",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let mv = cmds
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "move")
        .unwrap();
    assert_eq!(mv["options"][0]["autocomplete"], true);
    let ch = cmds
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "challenge")
        .unwrap();
    let variant = ch["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "variant")
        .unwrap();
    assert_eq!(variant["choices"].as_array().unwrap().len(), 5);
    assert_eq!(fake.identifies()[0]["intents"], 1, "GUILDS only");

    // A whole game of hkot-1.
    let options = GameOptions::with(Variant::Hkot1, None, Some(Side::Red)).unwrap();
    let moves = player_moves(options, 11);
    start_game(&fake, "hkot-1").await;

    // Autocomplete offers the legal placements.
    let ac = fake
        .autocomplete(
            ALICE,
            CH,
            "move",
            json!([{"name": "move", "type": 3, "value": "d", "focused": true}]),
        )
        .await;
    let r = fake.response(ac, T).await.unwrap();
    assert_eq!(r.callback_type(), Some(8));
    let choices = r.json.as_ref().unwrap()["data"]["choices"]
        .as_array()
        .unwrap()
        .len();
    assert!(choices > 0 && choices <= 25, "{choices}");

    let (answers, lat) = play(
        &fake,
        options,
        &moves,
        Interruptions {
            disconnect_at: Some(moves.len() / 4),
            restart_at: Some((moves.len() / 2, &mut bot, dir.path())),
        },
    )
    .await;
    assert!(
        fake.resume_count() >= 1,
        "serenity resumed after the disconnect"
    );
    let last = answers.last().unwrap().content().unwrap();
    assert!(
        last.contains("Game over.") && last.contains("Points:"),
        "{last}"
    );
    report("hkot-1", lat);

    // After the game: /status (private) and /record show it; errors are private.
    let s = fake.slash(ALICE, CH, "status", json!([])).await;
    assert!(fake.response(s, T).await.unwrap().ephemeral());
    let rec = fake.slash(ALICE, CH, "record", json!([])).await;
    let rec = fake.response(rec, T).await.unwrap();
    assert!(rec.content().unwrap().contains("variant: hkot-1"));
    // /game reaches the finished game by its number from another channel, with its board.
    let id = rec
        .content()
        .unwrap()
        .split("# game ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .expect("the record names its game")
        .to_string();
    let g = fake
        .slash(
            BOB,
            FakeDiscord::OTHER_CHANNEL_ID,
            "game",
            json!([{"name": "id", "type": 4, "value": id.parse::<i64>().unwrap()}]),
        )
        .await;
    let g = fake.response(g, T).await.unwrap();
    assert!(!g.ephemeral());
    let text = g.content().unwrap();
    assert!(
        text.contains("High Kings of Tara") && text.contains(&format!("<#{CH}>")),
        "{text}"
    );
    let png = &g.files.first().expect("/game attaches the board").1;
    assert_eq!(png_size(png), (600, 690));
    let missing = fake
        .slash(
            BOB,
            CH,
            "game",
            json!([{"name": "id", "type": 4, "value": 9999}]),
        )
        .await;
    let missing = fake.response(missing, T).await.unwrap();
    assert!(missing.ephemeral() && missing.content().unwrap().contains("no game #9999"));
    let log = bot_log(dir.path());
    assert!(
        !log.contains("received err"),
        "serenity rejected a payload:\n{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ard_ri_through_discord() {
    let (_dir, fake, _bot) = boot().await;
    let options = GameOptions::new(Variant::ArdRi);
    let moves = player_moves(options, 21);
    start_game(&fake, "ard-ri").await;
    let before = fake.requests().len();
    let (answers, lat) = play(&fake, options, &moves, Interruptions::default()).await;
    let last = answers.last().unwrap().content().unwrap();
    assert!(
        last.contains("Game over.") && last.contains("Points:"),
        "{last}"
    );
    report("ard-ri", lat);
    // REST requests per move played, pictures and the end included (the refusals of a move by
    // the wrong player, one in seven, included too).
    let per_move = (fake.requests().len() - before) as f64 / moves.len() as f64;
    println!("ard-ri: {per_move:.2} REST requests per move");
    assert!(per_move <= 3.0, "{per_move} requests per move");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forced_passes_are_announced_through_discord() {
    let (_dir, fake, _bot) = boot().await;
    // A Sacred Hill game in which a player must pass while the other captures.
    let options = GameOptions::with(Variant::SacredHill1, None, Some(Side::Red)).unwrap();
    let moves = (0..1000u64)
        .map(|s| player_moves(options, s))
        .find(|m| forces_a_pass(options, m))
        .expect("a game with a forced pass");
    start_game(&fake, "sacred-hill-1").await;
    let (answers, _) = play(&fake, options, &moves, Interruptions::default()).await;
    let all: String = answers
        .iter()
        .filter_map(|r| r.content())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        all.contains("had no legal move and passed"),
        "forced pass announced"
    );
    let last = answers.last().unwrap().content().unwrap();
    assert!(
        last.contains("Game over.") && last.contains("Points:"),
        "{last}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenges_open_a_thread_and_resigning_asks_first() {
    let (_dir, fake, _bot) = boot().await;
    let opponent = fake.user_option("opponent", BOB);
    let id = fake
        .slash(
            ALICE,
            CH,
            "challenge",
            json!([opponent, {"name": "variant", "type": 3, "value": "sacred-hill-2"}, {"name": "days", "type": 3, "value": "3"}]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    let threads = fake.threads();
    assert_eq!(threads.len(), 1, "{threads:?}");
    let thread: u64 = threads[0]["id"].as_str().unwrap().parse().unwrap();
    assert!(
        r.content().unwrap().contains(&format!("<#{thread}>")),
        "{:?}",
        r.content()
    );
    assert!(
        allowed_users(&r).is_empty(),
        "the note in the channel pings nobody"
    );
    let posted = fake.channel_messages(thread);
    assert_eq!(posted.len(), 1);
    assert!(posted[0]["content"]
        .as_str()
        .unwrap()
        .contains("3 days per move"));
    // Accept in the thread; the game lives there.
    let msg = posted[0].clone();
    let custom = msg["components"][0]["components"][0]["custom_id"]
        .as_str()
        .unwrap()
        .to_string();
    let click = fake.button(BOB, thread, msg, &custom).await;
    fake.response(click, T).await.unwrap();
    let start = fake.wait_followups(click, 1, T).await;
    assert!(start[0].content().unwrap().contains("Game on!"));
    let first = if start[0]
        .content()
        .unwrap()
        .contains(&format!("<@{}>, your move", ALICE.0))
    {
        ALICE
    } else {
        BOB
    };
    let mv = send_move(&fake, first, thread, "D4").await;
    let r = fake.response(mv, T).await.unwrap();
    assert!(!r.ephemeral(), "{:?}", r.content());
    assert!(
        r.content().unwrap().contains("3 days left"),
        "{:?}",
        r.content()
    );
    // No game in the parent channel.
    let none = send_move(&fake, first, CH, "D4").await;
    assert!(fake.response(none, T).await.unwrap().ephemeral());
    // Resign: confirmed with a button.
    let res = fake.slash(BOB, thread, "resign", json!([])).await;
    let ask = fake.response(res, T).await.unwrap();
    assert!(ask.ephemeral());
    let button = ask.custom_ids()[0].clone();
    let click = fake
        .button(BOB, thread, fake.message_from(&ask), &button)
        .await;
    fake.response(click, T).await.unwrap();
    let end = fake.wait_followups(click, 1, T).await;
    assert!(
        end[0].content().unwrap().contains("resigned"),
        "{:?}",
        end[0].content()
    );
    // A moderator's abort needs a game; a member's /abort on none is refused privately.
    let a = fake
        .slash(Invoker::new(7, "mona").moderator(), CH, "abort", json!([]))
        .await;
    assert!(fake.response(a, T).await.unwrap().ephemeral());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_start_up_the_clocks_catch_up_in_channels_and_by_dm() {
    use tara_bot::bot::time::{DAY, HOUR};
    use tara_bot::store::{MoveRow, NewGame, Store};
    let dir = tempfile::tempdir().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    // Two games stored while the bot was down: one past its deadline, one with a reminder due
    // for a player who wants reminders by direct message.
    {
        let mut store = Store::open(dir.path().join("tara.db")).unwrap();
        store
            .write(|tx| -> Result<(), tara_bot::store::StoreError> {
                let (a, b) = (id_str(ALICE), id_str(BOB));
                tx.upsert_user(&UserId::new(&a), ALICE.1, now)?;
                tx.upsert_user(&UserId::new(&b), BOB.1, now)?;
                tx.set_user_setting(&UserId::new(&a), UserSetting::REMINDERS, "dm")?;
                let options = GameOptions::with(Variant::ArdRi, None, None).unwrap();
                let late = tx.insert_game(
                    &NewGame {
                        server_id: &ServerId::new(FakeDiscord::GUILD_ID.to_string()),
                        channel_id: &ChannelId::new(CH.to_string()),
                        options,
                        seats: BySide::new(&UserId::new(&b), &UserId::new(&a)),
                        match_id: None,
                        match_game: None,
                        pairing_id: None,
                        rated: false,
                        ai_levels: BySide::new(None, None),
                        days_per_move: Some(1),
                    },
                    now - 2 * DAY,
                )?;
                // Both have moved (a timeout before a first move would abort the game instead).
                for (ply, (notation, who)) in [("d2-c2", &b), ("c3-b3", &a)].into_iter().enumerate()
                {
                    tx.insert_move(
                        late,
                        &MoveRow {
                            ply: ply as u32,
                            notation: notation.into(),
                            user_id: Some(UserId::new(who.clone())),
                            created_at: now - 2 * DAY,
                        },
                    )?;
                }
                tx.start_turn(late, now - 2 * DAY, Some((now - 2 * DAY, now - DAY)))?;
                let due = tx.insert_game(
                    &NewGame {
                        server_id: &ServerId::new(FakeDiscord::GUILD_ID.to_string()),
                        channel_id: &ChannelId::new(FakeDiscord::OTHER_CHANNEL_ID.to_string()),
                        options,
                        seats: BySide::new(&UserId::new(&a), &UserId::new(&b)),
                        match_id: None,
                        match_game: None,
                        pairing_id: None,
                        rated: false,
                        ai_levels: BySide::new(None, None),
                        days_per_move: Some(3),
                    },
                    now - 30 * HOUR,
                )?;
                tx.start_turn(
                    due,
                    now - 30 * HOUR,
                    Some((now - 30 * HOUR, now + 42 * HOUR)),
                )?;
                Ok(())
            })
            .unwrap();
    }
    let fake = FakeDiscord::start().await;
    let _bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready(T).await);
    let timeout = channel_post_containing(&fake, CH, "Time is up")
        .await
        .expect("the timeout announced in the game's channel");
    let mut both = vec![id_str(ALICE), id_str(BOB)];
    both.sort();
    assert_eq!(allowed_users(&timeout), both);
    assert_eq!(timeout.files.len(), 1, "with the final board");
    let dm = fake
        .wait_for(T, |f| f.dms(ALICE.0).into_iter().next())
        .await
        .expect("a reminder by DM");
    assert!(dm["content"].as_str().unwrap().contains("Reminder"), "{dm}");
}

/// The messages in a channel that carry the board of game `game` after `ply` moves: each
/// announcement of that move.
fn announcements(fake: &FakeDiscord, channel: u64, game: GameId, ply: usize) -> usize {
    fake.boards_posted(channel, game.0)
        .get(&ply)
        .copied()
        .unwrap_or(0)
}

/// The stored moves of game 1 and the messages still owed, read from the bot's database.
fn stored(dir: &Path) -> (Vec<String>, i64) {
    let mut store = tara_bot::store::Store::open(dir.join("tara.db")).unwrap();
    store
        .read(|tx| -> Result<_, tara_bot::store::StoreError> {
            let moves = tx
                .moves(GameId(1))?
                .into_iter()
                .map(|m| m.notation)
                .collect();
            Ok((moves, tx.unsent_count()?))
        })
        .unwrap()
}

/// Waits until every registered fault has been answered.
async fn faults_spent(fake: &FakeDiscord) {
    assert!(
        fake.wait_for(Duration::from_secs(30), |f| (f.faults_left() == 0)
            .then_some(()))
            .await
            .is_some(),
        "the bot did not try as often as expected"
    );
}

/// Sends a move while every try of its reply fails (4 tries) and channel posts answer with
/// `post`; returns once the bot has used up all of them.
async fn move_while_failing(fake: &FakeDiscord, who: (u64, &str), text: &str, post: Fault) {
    fake.fail(Fault::new("POST", "/callback", 500, 0, "Internal Server Error").times(4));
    fake.fail(post);
    send_move(fake, who, CH, text).await;
    faults_spent(fake).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_between_a_move_and_its_announcement_loses_nothing_and_posts_nothing_twice() {
    let (dir, fake, mut bot) = boot().await;
    start_game(&fake, "hkot-1").await;
    let ch = format!("/channels/{CH}/messages");

    // 1. Every send fails: the command's reply (4 tries) and the channel post (4 tries). The
    //    bot is killed; the move is stored, and so is its announcement, still owed.
    let post_fails = Fault::new("POST", &ch, 502, 0, "Bad Gateway").times(4);
    move_while_failing(&fake, ALICE, "D4", post_fails).await;
    drop(bot);
    assert_eq!(stored(dir.path()), (vec!["D4".to_string()], 1));
    assert_eq!(
        announcements(&fake, CH, GameId(1), 1),
        0,
        "nothing got through"
    );
    // Restarted: the owed announcement is posted once, with its board and its ping.
    bot = spawn_bot(&fake, dir.path());
    assert!(fake
        .wait_for(T, |f| (announcements(f, CH, GameId(1), 1) == 1)
            .then_some(()))
        .await
        .is_some());
    let posted = fake
        .requests()
        .into_iter()
        .rfind(|r| r.method == "POST" && r.path.ends_with(&ch) && r.status == 200)
        .unwrap();
    assert_eq!(allowed_users(&posted), vec![id_str(BOB)], "Bob is pinged");
    let nonce = posted.json.as_ref().unwrap()["nonce"].clone();
    assert!(
        nonce.as_str().is_some_and(|n| n.starts_with("tara-")),
        "{nonce}"
    );
    assert_eq!(posted.json.as_ref().unwrap()["enforce_nonce"], json!(true));

    // 2. The channel post goes through but its answer is lost (every try): Discord has the
    //    message, the bot does not know. Killed and restarted, it does not post it again.
    let answer_lost = Fault::new("POST", &ch, 500, 0, "Internal Server Error")
        .times(4)
        .after_doing_it();
    move_while_failing(&fake, BOB, "B2", answer_lost).await;
    drop(bot);
    assert_eq!(
        stored(dir.path()).1,
        1,
        "owed: the bot never heard it was posted"
    );
    assert_eq!(
        announcements(&fake, CH, GameId(1), 2),
        1,
        "the nonce kept it to one copy"
    );
    let _bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready_count(3, T).await);
    assert!(
        fake.wait_for(T, |_| (stored(dir.path()).1 == 0).then_some(()))
            .await
            .is_some(),
        "recorded as delivered after the restart"
    );
    assert_eq!(announcements(&fake, CH, GameId(1), 2), 1, "still one copy");
    assert_eq!(announcements(&fake, CH, GameId(1), 1), 1);
    // Play goes on: Alice's next move is announced as usual, as the answer to her command.
    let (_, r) = slash_move(&fake, ALICE, "F6").await;
    assert!(
        r.content().unwrap().contains("your move"),
        "{:?}",
        r.content()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_and_server_errors_are_retried_and_each_message_arrives_once() {
    let (_dir, fake, _bot) = boot().await;
    start_game(&fake, "hkot-1").await;
    // A rate limit on the reply route, then a server error: the reply still arrives, once.
    fake.fail(Fault::rate_limited("POST", "/callback", 0.3, false));
    fake.fail(Fault::new(
        "POST",
        "/callback",
        503,
        0,
        "Service Unavailable",
    ));
    let (_, r) = slash_move(&fake, ALICE, "D4").await;
    assert_eq!(r.status, 429);
    faults_spent(&fake).await;
    assert!(fake
        .wait_for(T, |f| (announcements(f, CH, GameId(1), 1) == 1)
            .then_some(()))
        .await
        .is_some());
    // A global rate limit on every route, twice: the follow-up still arrives.
    fake.fail(Fault::rate_limited("POST", "/api/v10/", 0.2, true).times(2));
    let (_, r) = slash_move(&fake, BOB, "B2").await;
    assert_eq!(r.status, 429);
    assert!(fake
        .wait_for(T, |f| (announcements(f, CH, GameId(1), 2) == 1)
            .then_some(()))
        .await
        .is_some());
    // A request Discord never answers (here: 15 s) is abandoned after 10 s and tried again.
    let ch = format!("/channels/{CH}/messages");
    let hangs = Fault::new("POST", &ch, 500, 0, "too late").slow(Duration::from_secs(15));
    move_while_failing(&fake, ALICE, "F6", hangs).await;
    assert!(fake
        .wait_for(Duration::from_secs(30), |f| (announcements(
            f,
            CH,
            GameId(1),
            3
        ) == 1)
            .then_some(()))
        .await
        .is_some());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(announcements(&fake, CH, GameId(1), 1), 1);
    assert_eq!(announcements(&fake, CH, GameId(1), 2), 1);
    assert_eq!(announcements(&fake, CH, GameId(1), 3), 1);
}

/// The requests made for interaction `id` (its callback and webhook), in order.
fn requests_for(fake: &FakeDiscord, id: u64) -> Vec<Recorded> {
    let token = fake.token(id).unwrap();
    fake.requests()
        .into_iter()
        .filter(|r| r.path.contains(&format!("/interactions/{id}/")) || r.path.contains(&token))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limited_callback_is_tried_again_only_after_retry_after_and_answered_once() {
    let (_dir, fake, _bot) = boot().await;
    start_game(&fake, "hkot-1").await;
    // The callback carrying the move's announcement: 429, retry_after 1.0 (in the body).
    fake.fail(Fault::rate_limited("POST", "/callback", 1.0, false));
    let (id, r) = slash_move(&fake, ALICE, "D4").await;
    assert_eq!(r.status, 429);
    assert!(fake
        .wait_for(T, |f| (announcements(f, CH, GameId(1), 1) == 1)
            .then_some(()))
        .await
        .is_some());
    let tries = requests_for(&fake, id);
    assert_eq!(tries[0].status, 429, "{tries:?}");
    assert_eq!(tries[1].status, 204, "{tries:?}");
    let waited = tries[1].at - tries[0].at;
    assert!(
        waited >= Duration::from_millis(980),
        "tried again after {waited:?}, before the 1 s Discord asked for"
    );
    // The same with the wait given only by the `Retry-After` header.
    fake.fail(Fault::rate_limited("POST", "/callback", 1.0, false).header_only());
    let (id, r) = slash_move(&fake, BOB, "B2").await;
    assert_eq!(r.status, 429);
    assert!(fake
        .wait_for(T, |f| (announcements(f, CH, GameId(1), 2) == 1)
            .then_some(()))
        .await
        .is_some());
    let tries = requests_for(&fake, id);
    assert_eq!((tries[0].status, tries[1].status), (429, 204));
    assert!(tries[1].at - tries[0].at >= Duration::from_millis(980));
    // A global rate limit on every route: nothing at all is sent before it is over.
    fake.fail(Fault::rate_limited("POST", "/api/v10/", 1.0, true));
    let (id, r) = slash_move(&fake, ALICE, "F6").await;
    assert_eq!(r.status, 429);
    assert!(fake
        .wait_for(T, |f| (announcements(f, CH, GameId(1), 3) == 1)
            .then_some(()))
        .await
        .is_some());
    let limited = requests_for(&fake, id)[0].at;
    let early: Vec<Recorded> = fake
        .requests()
        .into_iter()
        .filter(|r| r.at > limited && r.at - limited < Duration::from_millis(980))
        .collect();
    assert!(
        early.is_empty(),
        "sent during a global rate limit: {early:?}"
    );
    // Each announcement was delivered exactly once.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for ply in 1..=3 {
        assert_eq!(announcements(&fake, CH, GameId(1), ply), 1, "ply {ply}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_whose_thread_refuses_every_post_is_withdrawn_and_its_author_told_privately() {
    let (_dir, fake, _bot) = boot().await;
    // The thread opens, but every post is refused (Send Messages in Threads denied).
    fake.fail(Fault::new("POST", "/messages", 403, 50013, "Missing Permissions").times(1000));
    let opponent = fake.user_option("opponent", BOB);
    let id = fake
        .slash(
            ALICE,
            CH,
            "challenge",
            json!([opponent, {"name": "variant", "type": 3, "value": "hkot-1"}]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    let told = r.content().unwrap_or_default();
    assert!(r.ephemeral(), "told privately: {told}");
    assert!(!told.contains("Challenge posted"), "{told}");
    assert!(
        told.contains("I could not post the challenge in <#")
            && told.contains("I need the permission Send Messages in Threads there")
            && told.contains("A moderator can grant it")
            && told.contains("it is withdrawn")
            && told.contains("`thread: False`"),
        "{told}"
    );
    // Nothing public, and the empty thread is gone.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(fake.followups(id).await.is_empty());
    assert!(fake.threads().is_empty(), "{:?}", fake.threads());
    let refused = fake
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/messages"))
        .count();
    assert_eq!(refused, 1, "one refused post, not tried again");
    // The challenge is withdrawn: Bob cannot take it, and Alice may challenge again.
    fake.heal();
    let acc = fake
        .slash(
            BOB,
            CH,
            "accept",
            json!([{"name": "challenge", "type": 4, "value": 1}]),
        )
        .await;
    let a = fake.response(acc, T).await.unwrap();
    assert!(
        a.content()
            .unwrap()
            .contains("no longer open (it was cancelled)"),
        "{:?}",
        a.content()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_database_locked_private_answers_and_errors_stay_private() {
    let (dir, fake, _bot) = boot().await;
    start_game(&fake, "hkot-1").await;
    // Another process holds the write lock for 3.5 s.
    let path = dir.path().join("tara.db");
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        let mut store = tara_bot::store::Store::open(path).unwrap();
        store
            .write(|tx| -> Result<(), tara_bot::store::StoreError> {
                tx.upsert_user(&UserId::new("lock-holder"), "lock", 0)?;
                locked_tx.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(3500));
                Ok(())
            })
            .unwrap();
    });
    locked_rx.recv().unwrap();
    // Bob moves out of turn: the answer is slow, so it is deferred in public; the error must
    // not be shown in public: the "thinking…" is deleted and the error follows privately.
    let wrong = send_move(&fake, BOB, CH, "A3").await;
    let settings = fake.slash(ALICE, CH, "settings", json!([])).await;
    let d = fake.response(wrong, T).await.unwrap();
    assert_eq!(d.callback_type(), Some(5));
    let s = fake.response(settings, T).await.unwrap();
    assert_eq!(s.callback_type(), Some(5));
    assert!(s.ephemeral(), "a private command is deferred privately");
    holder.join().unwrap();
    let f = fake.wait_followups(wrong, 2, T).await;
    assert!(
        f.iter()
            .any(|r| r.method == "DELETE" && r.path.ends_with("/@original")),
        "{f:?}"
    );
    let err = f
        .iter()
        .find(|r| r.method == "POST")
        .expect("the error follows");
    assert!(err.ephemeral());
    assert!(
        err.content().unwrap().contains("not your turn"),
        "{:?}",
        err.content()
    );
    assert!(
        !f.iter().any(|r| r.method == "PATCH"),
        "the public deferral is never edited into the error"
    );
    let f = fake.wait_followups(settings, 1, T).await;
    assert_eq!(f[0].method, "PATCH");
    assert!(f[0].content().unwrap().contains("Your reminders"));
    // Nothing public carries the error.
    assert!(!fake.channel_messages(CH).iter().any(|m| m["content"]
        .as_str()
        .unwrap_or("")
        .contains("not your turn")
        && m["flags"].as_u64().unwrap_or(0) & 64 == 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_permissions_are_explained_and_closed_dms_fall_back_to_the_channel() {
    let (dir, fake, bot) = boot().await;
    // No thread can be made (50013): the challenge is posted in the channel, and the
    // challenger is told privately which permission is missing.
    fake.fail(Fault::new(
        "POST",
        "/threads",
        403,
        50013,
        "Missing Permissions",
    ));
    let opponent = fake.user_option("opponent", BOB);
    let id = fake
        .slash(
            ALICE,
            CH,
            "challenge",
            json!([opponent, {"name": "variant", "type": 3, "value": "ard-ri"},
                   {"name": "first", "type": 3, "value": "me"},
                   {"name": "days", "type": 3, "value": "1"}]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    assert!(!r.ephemeral() && r.content().unwrap().contains("challenges"));
    let f = fake.wait_followups(id, 1, T).await;
    let note = f[0].content().unwrap();
    assert!(f[0].ephemeral());
    assert!(
        note.contains("Create Public Threads") && note.contains("played here"),
        "{note}"
    );
    // Bob accepts from another channel while the bot may not post in the challenge's channel
    // (50001): the game is on, and Bob is told privately what is missing.
    let challenge = r.content().unwrap().split("challenge #").nth(1).unwrap();
    let number: i64 = challenge
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    fake.fail(Fault::new(
        "POST",
        &format!("/channels/{CH}/messages"),
        403,
        50001,
        "Missing Access",
    ));
    let acc = fake
        .slash(
            BOB,
            FakeDiscord::OTHER_CHANNEL_ID,
            "accept",
            json!([{"name": "challenge", "type": 4, "value": number}]),
        )
        .await;
    let a = fake.response(acc, T).await.unwrap();
    let mut told = a.content().unwrap_or_default().to_string();
    for f in fake.wait_followups(acc, 1, T).await {
        told.push_str(f.content().unwrap_or_default());
        assert!(f.ephemeral());
    }
    assert!(
        told.contains("View Channel (Missing Access)") && told.contains(&format!("<#{CH}>")),
        "{told}"
    );
    assert_eq!(stored(dir.path()).1, 1, "the game's start is still owed");
    let (_, r) = slash_move(&fake, ALICE, "d2-c2").await;
    assert!(!r.ephemeral());
    let (_, r) = slash_move(&fake, BOB, "c3-b3").await;
    assert!(!r.ephemeral());
    // Alice takes reminders by DM, but her DMs are closed (50007): the reminder comes in the
    // game's channel instead, with a ping.
    let s = fake
        .slash(
            ALICE,
            CH,
            "settings",
            json!([{"name": "reminders", "type": 3, "value": "dm"}]),
        )
        .await;
    fake.response(s, T).await.unwrap();
    fake.close_dms(ALICE.0);
    // Two hours left on Alice's clock, and the bot restarted (its clocks catch up at once).
    drop(bot);
    {
        let mut store = tara_bot::store::Store::open(dir.path().join("tara.db")).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        let hour = 3_600_000;
        store
            .write(|tx| -> Result<(), tara_bot::store::StoreError> {
                tx.start_turn(
                    GameId(1),
                    now - 22 * hour,
                    Some((now - 22 * hour, now + 2 * hour)),
                )
            })
            .unwrap();
    }
    let _bot = spawn_bot(&fake, dir.path());
    let reminder = fake
        .wait_for(T, |f| {
            f.channel_messages(CH)
                .into_iter()
                .find(|m| m["content"].as_str().unwrap_or("").contains("Reminder"))
        })
        .await
        .expect("the reminder, in the channel");
    assert!(
        reminder["content"]
            .as_str()
            .unwrap()
            .contains(&format!("<@{}>", ALICE.0)),
        "{reminder}"
    );
    assert!(fake.dms(ALICE.0).is_empty());
    // The refusal is logged as what it is, not as a failure to post (issue 45).
    let log = bot_log(dir.path());
    assert!(
        log.contains("takes no direct messages from the bot")
            && !log
                .lines()
                .any(|l| l.contains("ERROR") && l.contains("50007")),
        "{log}"
    );
    // The game's start, owed since the refusal, was posted on start-up too.
    assert!(fake
        .channel_messages(CH)
        .iter()
        .any(|m| m["content"].as_str().unwrap_or("").contains("Game on!")));
    assert!(
        fake.wait_for(T, |_| (stored(dir.path()).1 == 0).then_some(()))
            .await
            .is_some(),
        "nothing left owed"
    );
}

/// Issue 47: with `TARA_BOT_WEB_URL` set and the server on the web, a game's start and end
/// arrive with an "Open on the web" link button (type 2, style 5, its URL, no custom id) after
/// their other buttons, which Discord (the fake checks as it does) takes; a pressed Rematch
/// takes the other buttons off the message and leaves the link.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_start_and_end_carry_a_link_button_to_the_web() {
    let url = [("TARA_BOT_WEB_URL", "https://tara.example.org/")];
    let (_dir, fake, _bot) = boot_env(&url).await;
    let on = json!([{"name": "web", "type": 5, "value": true}]);
    let admin = Invoker::new(8, "ailbhe").admin();
    let s = fake.slash(admin, CH, "settings", on).await;
    let r = fake.response(s, T).await.unwrap();
    assert!(
        r.content().unwrap().contains("web companion"),
        "{:?}",
        r.content()
    );
    let page = "https://tara.example.org/g/1";
    let link = vec![("Open on the web".to_string(), page.to_string())];
    let start = start_game(&fake, "ard-ri").await;
    assert_eq!(start.links(), link);
    let button = &start.data().unwrap()["components"][0]["components"][0];
    assert_eq!((&button["type"], &button["style"]), (&json!(2), &json!(5)));
    assert_eq!(button["url"], page);
    assert!(button.get("custom_id").is_none(), "{button}");
    slash_move(&fake, ALICE, "d2-c2").await;
    slash_move(&fake, BOB, "c3-b3").await;
    let click = resign_confirmed(&fake, BOB, CH).await;
    let end = fake.wait_followups(click, 1, T).await.remove(0);
    assert!(
        end.content().unwrap().contains("Game over"),
        "{:?}",
        end.content()
    );
    assert_eq!(end.links(), link);
    let rows = end.data().unwrap()["components"]
        .as_array()
        .unwrap()
        .clone();
    let last = rows.last().unwrap()["components"].as_array().unwrap();
    assert_eq!(last.last().unwrap()["style"], 5, "the link comes last");
    let rematch = end.custom_ids();
    assert!(rematch[0].starts_with("rematch:"), "{rematch:?}");
    // Rematch pressed: the message loses its Rematch button and keeps its link.
    let click = fake
        .button(ALICE, CH, fake.message_from(&end), &rematch[0])
        .await;
    let update = fake.response(click, T).await.unwrap();
    assert_eq!(update.callback_type(), Some(7));
    assert!(update.custom_ids().is_empty(), "{:?}", update.json);
    assert_eq!(update.links(), link);
    let refused: Vec<Recorded> = fake
        .requests()
        .into_iter()
        .filter(|r| r.status == 400)
        .collect();
    assert!(refused.is_empty(), "{refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_sent_in_a_dm_is_refused_privately_and_posts_nothing() {
    let (dir, fake, _bot) = boot().await;
    // Registered for servers only, except /help and /rules.
    let cmds = fake
        .registered_commands(T)
        .await
        .expect("commands registered");
    for c in cmds.as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let contexts = if name == "help" || name == "rules" {
            json!([0, 1])
        } else {
            json!([0])
        };
        assert_eq!(c["contexts"], contexts, "contexts of /{name}");
        assert_eq!(c["dm_permission"], json!(name == "help" || name == "rules"));
    }
    let opponent = fake.user_option("opponent", BOB);
    let id = fake
        .dm_slash(
            ALICE,
            "challenge",
            json!([
                opponent,
                {"name": "variant", "type": 3, "value": "hkot-1"},
                {"name": "days", "type": 3, "value": "3"}
            ]),
        )
        .await;
    let r = fake
        .response(id, T)
        .await
        .expect("the DM challenge answered");
    assert_eq!(r.callback_type(), Some(4));
    assert!(r.ephemeral(), "{:?}", r.content());
    let text = r.content().unwrap();
    assert!(
        text.contains("`/challenge` works only in a server's channels"),
        "{text}"
    );
    assert!(r.custom_ids().is_empty() && allowed_users(&r).is_empty());
    // Nothing posted, no thread, nothing stored: Bob has nothing to accept.
    let posted: Vec<String> = fake
        .requests()
        .iter()
        .filter(|q| q.method == "POST" && !q.path.contains("/interactions/"))
        .map(|q| q.path.clone())
        .collect();
    assert!(posted.is_empty(), "{posted:?}");
    assert!(fake.threads().is_empty());
    let accept = fake
        .slash(
            BOB,
            CH,
            "accept",
            json!([{"name": "challenge", "type": 4, "value": 1}]),
        )
        .await;
    let a = fake.response(accept, T).await.unwrap();
    assert!(a.ephemeral(), "{:?}", a.content());
    let mut store = tara_bot::store::Store::open(dir.path().join("tara.db")).unwrap();
    let (challenge, owed) = store
        .read(|tx| -> Result<_, tara_bot::store::StoreError> {
            Ok((tx.challenge(ChallengeId(1))?, tx.unsent_count()?))
        })
        .unwrap();
    assert!(challenge.is_none() && owed == 0);
    // /help is answered in the DM.
    let help = fake.dm_slash(ALICE, "help", json!([])).await;
    let h = fake.response(help, T).await.unwrap();
    assert!(h.ephemeral() && h.content().unwrap().contains("`/challenge"));
}

/// Random legal plies of Ard Rí (forced passes included) from the first seed whose game lasts
/// at least `plies` without ending; the first `plies` of them.
fn long_ard_ri(plies: usize) -> (GameOptions, Vec<Move>) {
    let options = GameOptions::new(Variant::ArdRi);
    for seed in 1..500 {
        let mut rng = tara_bot::game::playout::Rng::new(seed);
        let mut pos = Position::new(options);
        let mut moves = Vec::new();
        while pos.outcome().is_none() && moves.len() < plies {
            let legal = pos.legal_moves();
            let m = legal[rng.below(legal.len())];
            pos.play(m).unwrap();
            moves.push(m);
        }
        if moves.len() == plies && pos.outcome().is_none() {
            return (options, moves);
        }
    }
    panic!("no random Ard Rí game of {plies} plies");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_420_ply_record_arrives_whole_as_a_text_file() {
    use tara_bot::store::{MoveRow, NewGame, Store};
    let dir = tempfile::tempdir().unwrap();
    let (options, moves) = long_ard_ri(420);
    let game = {
        let mut store = Store::open(dir.path().join("tara.db")).unwrap();
        store
            .write(|tx| -> Result<i64, tara_bot::store::StoreError> {
                let (a, b) = (id_str(ALICE), id_str(BOB));
                tx.upsert_user(&UserId::new(&a), ALICE.1, 0)?;
                tx.upsert_user(&UserId::new(&b), BOB.1, 0)?;
                let g = tx.insert_game(
                    &NewGame {
                        server_id: &ServerId::new(FakeDiscord::GUILD_ID.to_string()),
                        channel_id: &ChannelId::new(CH.to_string()),
                        options,
                        seats: BySide::new(&UserId::new(&a), &UserId::new(&b)),
                        match_id: None,
                        match_game: None,
                        pairing_id: None,
                        rated: false,
                        ai_levels: BySide::new(None, None),
                        days_per_move: None,
                    },
                    0,
                )?;
                for (ply, m) in moves.iter().enumerate() {
                    tx.insert_move(
                        g,
                        &MoveRow {
                            ply: ply as u32,
                            notation: m.to_string(),
                            user_id: Some(if ply % 2 == 0 {
                                UserId::new(a.clone())
                            } else {
                                UserId::new(b.clone())
                            }),
                            created_at: 0,
                        },
                    )?;
                }
                Ok(g.0)
            })
            .unwrap()
    };
    let fake = FakeDiscord::start().await;
    let _bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    let id = fake.slash(BOB, CH, "record", json!([])).await;
    let r = fake.response(id, T).await.expect("/record answered");
    assert_eq!(r.callback_type(), Some(4));
    assert!(!r.ephemeral());
    let text = r.content().unwrap();
    assert!(
        text.contains(&format!("The record of game {game} (420 moves)")),
        "{text}"
    );
    assert!(text.chars().count() <= 2000);
    assert_eq!(r.files.len(), 1, "one file");
    let (name, bytes) = &r.files[0];
    assert_eq!(name, &format!("game-{game}.txt"));
    let file = String::from_utf8(bytes.clone()).expect("UTF-8 text");
    let record = tara_bot::game::GameRecord { options, moves }.to_string();
    assert!(
        file.starts_with(&format!("# game {game} · ")) && file.ends_with(&record),
        "{file}"
    );
    // The file reads back as the same game.
    let back = tara_bot::game::GameRecord::parse(&file).expect("the file is importable");
    assert_eq!(back.moves.len(), 420);
    // Only one message: no follow-ups.
    assert!(fake.followups(id).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_debug_level_no_token_reaches_the_log() {
    // RUST_LOG=debug alone, and with serenity and reqwest asked for by name.
    for rust_log in ["debug", "debug,serenity=debug,reqwest=trace"] {
        let dir = tempfile::tempdir().unwrap();
        let fake = FakeDiscord::start().await;
        let _bot = spawn_bot_logging(&fake, dir.path(), rust_log);
        assert!(
            fake.wait_ready(T).await,
            "no READY: {}",
            bot_log(dir.path())
        );
        fake.registered_commands(T)
            .await
            .expect("commands registered");
        // A command, a button (in start_game), a move, and a request Discord fails once.
        start_game(&fake, "hkot-1").await;
        fake.fail(Fault::new(
            "POST",
            "/callback",
            500,
            0,
            "Internal Server Error",
        ));
        let (_, r) = slash_move(&fake, ALICE, "D4").await;
        assert!(!r.ephemeral(), "{:?}", r.content());
        let status = fake.slash(BOB, CH, "status", json!([])).await;
        fake.response(status, T).await.expect("/status answered");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let log = bot_log(dir.path());
        assert!(
            log.contains("DEBUG") && log.contains("interaction handled"),
            "{rust_log}: not a debug log:\n{log}"
        );
        assert!(
            !log.contains("fake-token"),
            "{rust_log}: the bot token is logged"
        );
        let tokens: Vec<String> = fake
            .requests()
            .iter()
            .filter_map(|q| q.path.strip_prefix("/api/v10/interactions/"))
            .filter_map(|rest| rest.split('/').next()?.parse::<u64>().ok())
            .filter_map(|id| fake.token(id))
            .collect();
        assert!(tokens.len() >= 4, "{tokens:?}");
        for t in &tokens {
            assert!(
                !log.contains(t.as_str()),
                "{rust_log}: interaction token {t} logged"
            );
        }
        assert!(
            !log.contains("\"type\":2") && !log.contains("INTERACTION_CREATE"),
            "{rust_log}: an interaction payload is logged"
        );
        eprintln!(
            "RUST_LOG={rust_log}: {} log lines, {} interaction tokens, none logged",
            log.lines().count(),
            tokens.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_thread_of_a_declined_challenge_is_archived_and_a_channel_never_is() {
    let (_dir, fake, _bot) = boot().await;
    let opponent = fake.user_option("opponent", BOB);
    let id = fake
        .slash(
            ALICE,
            CH,
            "challenge",
            json!([opponent, {"name": "variant", "type": 3, "value": "hkot-1"}]),
        )
        .await;
    fake.response(id, T).await.unwrap();
    let thread: u64 = fake.threads()[0]["id"].as_str().unwrap().parse().unwrap();
    // A second challenge to the same player is refused before any thread is opened for it.
    let opponent = fake.user_option("opponent", BOB);
    let again = fake
        .slash(
            ALICE,
            CH,
            "challenge",
            json!([opponent, {"name": "variant", "type": 3, "value": "ard-ri"}]),
        )
        .await;
    let r = fake.response(again, T).await.unwrap();
    assert!(r.ephemeral() && allowed_users(&r).is_empty());
    assert!(
        r.content()
            .unwrap()
            .contains(&format!("challenge #1 in <#{thread}>")),
        "{:?}",
        r.content()
    );
    assert_eq!(fake.threads().len(), 1, "no thread for a refused challenge");
    assert!(!fake
        .requests()
        .iter()
        .any(|q| q.method == "DELETE" && q.path.contains("/channels/")));
    let msg = fake.channel_messages(thread)[0].clone();
    let decline = msg["components"][0]["components"][1]["custom_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(decline.starts_with("decline:"), "{decline}");
    let click = fake.button(BOB, thread, msg, &decline).await;
    fake.response(click, T).await.unwrap();
    let archived = fake
        .wait_for(T, |f| {
            f.threads()
                .into_iter()
                .find(|t| t["id"] == json!(thread.to_string()))
                .filter(|t| t["thread_metadata"]["archived"] == json!(true))
        })
        .await;
    assert!(archived.is_some(), "the thread is archived");
    // The decline was posted in it first (posting would unarchive it).
    let posted = fake.channel_messages(thread);
    assert!(posted
        .iter()
        .any(|m| m["content"].as_str().unwrap_or("").contains("declined")));

    // A challenge in the channel itself, cancelled: the channel is left alone.
    let opponent = fake.user_option("opponent", BOB);
    let id = fake
        .slash(
            ALICE,
            CH,
            "challenge",
            json!([opponent, {"name": "variant", "type": 3, "value": "hkot-1"}, {"name": "thread", "type": 5, "value": false}]),
        )
        .await;
    assert!(!fake.response(id, T).await.unwrap().ephemeral());
    let challenge = fake.message_from(&fake.response(id, T).await.unwrap());
    let cancel = fake.slash(ALICE, CH, "cancel", json!([])).await;
    let r = fake.response(cancel, T).await.unwrap();
    assert!(
        r.content().unwrap().contains("withdrew"),
        "{:?}",
        r.content()
    );
    // Cancelled with a typed command: the challenge's message loses its buttons all the same.
    let message_id = challenge["id"].as_str().unwrap().parse::<u64>().unwrap();
    let edited = fake
        .wait_for(T, |f| {
            f.message(message_id).filter(|m| {
                m["components"].as_array().is_none_or(|c| c.is_empty())
                    && m["content"].as_str().unwrap_or("").contains("withdrawn by")
            })
        })
        .await;
    assert!(edited.is_some(), "{:?}", fake.message(message_id));
    // Give the adapter the time it would take to look the channel up.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !fake
            .requests()
            .iter()
            .any(|q| q.method == "PATCH" && q.path.ends_with(&format!("/channels/{CH}"))),
        "a text channel is never archived"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_stay_text_and_a_moderator_ends_a_match_on_the_record() {
    let (_dir, fake, _bot) = boot().await;
    let eve = (
        1_000_000_000_000_000_005,
        "[Free Nitro](https://evil.example/a)",
    );
    let fen = (1_000_000_000_000_000_006, "fen```<@1000000000000000001>");
    fake.add_user(eve.0, eve.1);
    fake.add_user(fen.0, fen.1);
    let opponent = fake.user_option("opponent", fen);
    let id = fake
        .slash(
            eve,
            CH,
            "challenge",
            json!([opponent, {"name": "variant", "type": 3, "value": "hkot-1"},
                   {"name": "first", "type": 3, "value": "me"},
                   {"name": "match", "type": 5, "value": true},
                   {"name": "thread", "type": 5, "value": false}]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    let click = fake
        .button(fen, CH, fake.message_from(&r), &r.custom_ids()[0])
        .await;
    fake.response(click, T).await.unwrap();
    fake.wait_followups(click, 1, T).await;
    let (_, r) = slash_move(&fake, eve, "D4").await;
    assert!(!r.ephemeral());
    // A moderator ends the match, with a reason that tries the same tricks.
    let mona = Invoker::new(7, "mona").admin();
    let a = fake
        .slash(
            mona.clone(),
            CH,
            "abort",
            json!([{"name": "reason", "type": 3, "value": "see [here](https://evil.example/b) @everyone"}]),
        )
        .await;
    let a = fake.response(a, T).await.unwrap();
    let text = a.content().unwrap();
    assert!(
        !a.ephemeral() && text.contains("The match is called off"),
        "{text}"
    );
    let mut pinged = allowed_users(&a);
    pinged.sort();
    assert_eq!(pinged, vec![eve.0.to_string(), fen.0.to_string()]);
    // No game is left in the channel: the match is over, not replayed.
    let s = fake.slash(eve, CH, "status", json!([])).await;
    let s = fake.response(s, T).await.unwrap();
    assert!(
        !s.content().unwrap().contains("to move"),
        "{:?}",
        s.content()
    );
    // Every message the bot sent: no link, no fence broken, no mention it did not mean.
    for m in fake.channel_messages(CH) {
        let c = m["content"].as_str().unwrap_or_default();
        assert!(!c.contains("](http"), "{c}");
        assert!(!c.contains("fen```"), "{c}");
        assert!(!c.contains("@everyone"), "{c}");
        assert!(!c.contains(&format!("<@{}>", ALICE.0)), "{c}");
    }
    // The audit log has it.
    let log = fake.slash(mona, CH, "audit", json!([])).await;
    let log = fake.response(log, T).await.unwrap();
    assert!(log.ephemeral());
    let text = log.content().unwrap();
    assert!(
        text.contains("abort · game #1") && text.contains("match called off"),
        "{text}"
    );
}

/// One user's flood is refused and nobody else's command is: Bob's `/rules` during the flood
/// are all answered with the rules. How long they take, idle and during the flood, is measured
/// by `bench discord` (its `discord flood` line), not here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_one_user_does_not_slow_anyone_else() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    let _bot = spawn_bot_env(&fake, dir.path(), &[("TARA_BOT_RATE_LIMIT", "on")]);
    assert!(fake.wait_ready(T).await);
    // Alice sends 60 challenges at once; Bob's commands meanwhile.
    let mut flood = Vec::new();
    for i in 0..60u64 {
        let opponent = fake.user_option("opponent", (2_000_000_000_000_000_000 + i, "p"));
        flood.push(
            fake.slash(
                ALICE,
                CH,
                "challenge",
                json!([opponent, {"name": "variant", "type": 3, "value": "ard-ri"},
                       {"name": "thread", "type": 5, "value": false}]),
            )
            .await,
        );
    }
    for _ in 0..10 {
        let id = fake.slash(BOB, CH, "rules", json!([])).await;
        let r = fake.response(id, T).await.expect("Bob is answered");
        let text = r.content().unwrap_or_default();
        assert!(
            text.starts_with("**High Kings of Tara (hkot-1)**"),
            "Bob was refused: {text}"
        );
    }
    let mut refused = 0;
    for id in flood {
        let r = fake
            .response(id, T)
            .await
            .expect("every command is answered");
        if r.ephemeral() {
            refused += 1;
        }
    }
    assert!(refused >= 50, "{refused}");
}

/// The answer to an interaction that may have been deferred (a slow command): the callback
/// itself, or, after a deferral (type 5), the edit of the original response that follows.
async fn final_answer(fake: &FakeDiscord, id: u64) -> Recorded {
    let r = fake.response(id, T).await.expect("answered");
    if r.callback_type() != Some(5) {
        return r;
    }
    let f = fake.wait_followups(id, 1, Duration::from_secs(60)).await;
    f.into_iter().next().expect("the deferred answer")
}

/// Seeds the database of the archive test: a 400-ply Ard Rí game in progress in the channel,
/// 12 finished games between Alice and Bob in other channels (ending a second apart), and a
/// game of another server. Returns (the long game, the finished games newest first, the other
/// server's game).
fn seed_archive(db: &Path) -> (i64, Vec<i64>, i64) {
    use tara_bot::game::{forfeit, EndReason};
    use tara_bot::store::{MoveRow, NewGame, Store};
    let (options, moves) = long_ard_ri(400);
    let mut store = Store::open(db).unwrap();
    store
        .write(|tx| -> Result<_, tara_bot::store::StoreError> {
            let (a, b) = (id_str(ALICE), id_str(BOB));
            tx.upsert_user(&UserId::new(&a), ALICE.1, 0)?;
            tx.upsert_user(&UserId::new(&b), BOB.1, 0)?;
            let guild = FakeDiscord::GUILD_ID.to_string();
            let game =
                |tx: &tara_bot::store::Tx, server: &str, channel: String, options: GameOptions| {
                    tx.insert_game(
                        &NewGame {
                            server_id: &ServerId::new(server),
                            channel_id: &ChannelId::new(&channel),
                            options,
                            seats: BySide::new(&UserId::new(&a), &UserId::new(&b)),
                            match_id: None,
                            match_game: None,
                            pairing_id: None,
                            rated: false,
                            ai_levels: BySide::new(None, None),
                            days_per_move: None,
                        },
                        0,
                    )
                };
            let long = game(tx, &guild, CH.to_string(), options)?;
            for (ply, m) in moves.iter().enumerate() {
                tx.insert_move(
                    long,
                    &MoveRow {
                        ply: ply as u32,
                        notation: m.to_string(),
                        user_id: Some(if ply % 2 == 0 {
                            UserId::new(a.clone())
                        } else {
                            UserId::new(b.clone())
                        }),
                        created_at: 0,
                    },
                )?;
            }
            let mut finished = Vec::new();
            for i in 0..12 {
                let o = GameOptions::new(Variant::Hkot1);
                let g = game(tx, &guild, format!("{}", 500 + i), o)?;
                let result = forfeit(&Position::new(o), Side::Blue, EndReason::Resigned);
                tx.finish_game(g, &result, 1_796_000_000_000 + i * 1000)?;
                finished.push(g.0);
            }
            finished.reverse();
            let theirs = game(tx, "999", "998".into(), GameOptions::new(Variant::Hkot1))?;
            Ok((long.0, finished, theirs.0))
        })
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_archive_and_discussion_through_discord() {
    use tara_bot::render::UPLOAD_LIMIT;
    let dir = tempfile::tempdir().unwrap();
    let (long, finished, theirs) = seed_archive(&dir.path().join("tara.db"));
    let fake = FakeDiscord::start().await;
    let _bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    let other = FakeDiscord::OTHER_CHANNEL_ID;

    // /replay of the 400-ply game in progress, from another channel: one GIF within the limit.
    let id = fake
        .slash(
            BOB,
            other,
            "replay",
            json!([{"name": "id", "type": 4, "value": long}]),
        )
        .await;
    let r = final_answer(&fake, id).await;
    let text = r.content().unwrap_or_default().to_string();
    assert!(text.contains(&format!("Replay of game {long}")), "{text}");
    assert!(text.contains("400 moves so far (in progress)"), "{text}");
    assert!(!r.ephemeral());
    assert_eq!(r.files.len(), 1, "{text}");
    let (name, gif) = &r.files[0];
    assert_eq!(name, &format!("game-{long}.gif"));
    assert!(gif.len() <= UPLOAD_LIMIT, "{} bytes", gif.len());
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::Indexed);
    let mut dec = opts.read_info(&gif[..]).expect("a GIF");
    // A position may be two images (the header's change, shown for PART_DELAY only, then the
    // board's): count the positions.
    let mut frames = 0;
    while let Some(f) = dec.read_next_frame().unwrap() {
        if f.delay > tara_bot::render::PART_DELAY {
            frames += 1;
        }
    }
    assert_eq!(frames, 401, "every position fits: nothing skipped");
    assert!(!text.contains("skipped"), "{text}");

    // /export: always a file, even for a short record; privately.
    let short = finished[0];
    let id = fake
        .slash(
            BOB,
            other,
            "export",
            json!([{"name": "id", "type": 4, "value": short}]),
        )
        .await;
    let r = final_answer(&fake, id).await;
    assert!(r.ephemeral());
    assert_eq!(r.files.len(), 1);
    assert_eq!(r.files[0].0, format!("game-{short}.txt"));
    let file = String::from_utf8(r.files[0].1.clone()).unwrap();
    let rec = tara_bot::game::GameRecord::parse(&file).expect("importable");
    assert_eq!(rec.options.variant, Variant::Hkot1);
    assert!(file.contains("# result: Red wins"), "{file}");
    assert!(r
        .content()
        .unwrap()
        .contains(&format!("The record of game {short}")));

    // A missing game and another server's game: the same private answer, nothing attached.
    let mut answers = Vec::new();
    for (cmd, n) in [
        ("replay", 99_999),
        ("replay", theirs),
        ("export", 99_999),
        ("export", theirs),
    ] {
        let id = fake
            .slash(
                BOB,
                other,
                cmd,
                json!([{"name": "id", "type": 4, "value": n}]),
            )
            .await;
        let r = final_answer(&fake, id).await;
        assert!(r.ephemeral() && r.files.is_empty());
        answers.push(r.content().unwrap().replace(&n.to_string(), "N"));
    }
    assert!(
        answers
            .iter()
            .all(|a| a == "There is no game #N on this server."),
        "{answers:?}"
    );

    // /history: ten a page, a Next button that turns the page in place.
    let id = fake.slash(ALICE, other, "history", json!([])).await;
    let r = final_answer(&fake, id).await;
    assert!(r.ephemeral());
    let page1 = r.content().unwrap().to_string();
    let listed = |t: &str| -> Vec<i64> {
        t.lines()
            .filter_map(|l| l.strip_prefix("• #"))
            .map(|l| l.split(' ').next().unwrap().parse().unwrap())
            .collect()
    };
    assert_eq!(listed(&page1), finished[..10], "{page1}");
    assert!(
        page1.contains(&format!("<@{}> (Red) vs <@{}> (Blue)", ALICE.0, BOB.0)),
        "{page1}"
    );
    assert!(allowed_users(&r).is_empty(), "a list pings nobody");
    let ids = r.custom_ids();
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert!(
        ids[0].starts_with("history:") && ids[0].len() <= 100,
        "{ids:?}"
    );
    let click = fake
        .button(ALICE, other, fake.message_from(&r), &ids[0])
        .await;
    let upd = fake.response(click, T).await.expect("page 2");
    assert_eq!(
        upd.callback_type(),
        Some(7),
        "the page is replaced in place"
    );
    let page2 = upd.content().unwrap().to_string();
    assert_eq!(listed(&page2), finished[10..], "{page2}");
    assert!(page2.contains("page 2"), "{page2}");
    let ids2 = upd.custom_ids();
    assert_eq!(ids2.len(), 1, "only Previous on the last page: {ids2:?}");
    assert!(fake.followups(click).await.is_empty(), "no new message");
    // Back again.
    let back = fake
        .button(ALICE, other, fake.message_from(&upd), &ids2[0])
        .await;
    let upd = fake.response(back, T).await.expect("page 1 again");
    assert_eq!(upd.callback_type(), Some(7));
    assert_eq!(listed(upd.content().unwrap()), finished[..10]);
    // A user's games of one variant.
    let id = fake
        .slash(
            ALICE,
            other,
            "history",
            json!([fake.user_option("user", BOB), {"name": "variant", "type": 3, "value": "ard-ri"}]),
        )
        .await;
    let r = final_answer(&fake, id).await;
    assert!(
        r.content().unwrap().contains("none yet"),
        "{:?}",
        r.content()
    );

    // /position: a board from a pasted record, with marks and arrows; no game is created.
    let id = fake
        .slash(
            ALICE,
            other,
            "position",
            json!([
                {"name": "record", "type": 3, "value": "variant: hkot-1 moves: D4 B2 F6"},
                {"name": "marks", "type": 3, "value": "D4 B2"},
                {"name": "arrows", "type": 3, "value": "F6-F4"}
            ]),
        )
        .await;
    let r = final_answer(&fake, id).await;
    assert!(!r.ephemeral(), "{:?}", r.content());
    assert_eq!(r.files.len(), 1);
    assert_eq!(png_size(&r.files[0].1), (600, 690));
    // A record that does not read: the engine's message, privately.
    let id = fake
        .slash(
            ALICE,
            other,
            "position",
            json!([{"name": "record", "type": 3, "value": "variant: hkot-1 moves: D4 D4"}]),
        )
        .await;
    let r = final_answer(&fake, id).await;
    assert!(r.ephemeral() && r.files.is_empty());
    assert!(
        r.content().unwrap().contains("move 2 (D4)"),
        "{:?}",
        r.content()
    );
    // /board with marks and arrows, and a bad mark named.
    let id = fake
        .slash(
            BOB,
            CH,
            "board",
            json!([{"name": "marks", "type": 3, "value": "d4"}, {"name": "arrows", "type": 3, "value": "a4-c4"}]),
        )
        .await;
    let r = final_answer(&fake, id).await;
    assert_eq!(r.files.len(), 1, "{:?}", r.content());
    let id = fake
        .slash(
            BOB,
            CH,
            "board",
            json!([{"name": "marks", "type": 3, "value": "d4 q1"}]),
        )
        .await;
    let r = final_answer(&fake, id).await;
    assert!(r.ephemeral() && r.content().unwrap().starts_with("Bad mark `q1`"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_result_shows_in_the_leaderboard_and_profile_pictures() {
    let (_dir, fake, _bot) = boot().await;
    start_game(&fake, "hkot-1").await;
    // Both move first: a resignation before that aborts the game (docs/rules.md §9).
    opening_in(&fake, CH, [ALICE, BOB]).await;
    let res = fake.slash(BOB, CH, "resign", json!([])).await;
    let ask = fake.response(res, T).await.unwrap();
    let click = fake
        .button(BOB, CH, fake.message_from(&ask), &ask.custom_ids()[0])
        .await;
    fake.response(click, T).await.unwrap();
    let end = fake.wait_followups(click, 1, T).await;
    let text = end[0].content().unwrap();
    assert!(
        text.contains(&format!(
            "Ratings (hkot-1): <@{}> 1662? (+162), <@{}> 1338? (−162).",
            ALICE.0, BOB.0
        )),
        "{text}"
    );
    // The leaderboard: public, a picture, nobody pinged.
    let lb = fake.slash(BOB, CH, "leaderboard", json!([])).await;
    let lb = fake.response(lb, T).await.unwrap();
    assert!(!lb.ephemeral());
    let text = lb.content().unwrap();
    assert!(
        text.contains(&format!("1. <@{}> 1662 ±290?", ALICE.0)),
        "{text}"
    );
    assert!(allowed_users(&lb).is_empty(), "a leaderboard pings nobody");
    assert_eq!(lb.files.len(), 1, "the leaderboard picture");
    assert!(lb.files[0].0.ends_with(".png"), "{}", lb.files[0].0);
    assert!(lb.files[0].1.len() <= 150 * 1024);
    // Bob's profile, asked for by Alice.
    let opt = fake.user_option("user", BOB);
    let p = fake.slash(ALICE, CH, "profile", json!([opt])).await;
    let p = fake.response(p, T).await.unwrap();
    let text = p.content().unwrap();
    assert!(
        text.contains("1338 ±290? · 0W 0D 1L · streak: 1 loss · last five: L"),
        "{text}"
    );
    assert!(allowed_users(&p).is_empty(), "a profile pings nobody");
    assert_eq!(p.files.len(), 1, "the profile card");
    assert!(p.files[0].1.len() <= 150 * 1024);
}

const CARA: (u64, &str) = (1_000_000_000_000_000_003, "cara");

/// The message a button press posted (its first follow-up), waiting for it.
async fn pressed_reply(fake: &FakeDiscord, click: u64) -> Recorded {
    fake.wait_followups(click, 1, T)
        .await
        .into_iter()
        .next()
        .expect("a follow-up to the press")
}

/// Requests that posted or answered with a message whose content contains `text`.
fn posts_containing(fake: &FakeDiscord, text: &str) -> usize {
    fake.requests()
        .iter()
        .filter(|r| r.method == "POST" && r.content().is_some_and(|c| c.contains(text)))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draws_rematches_open_challenges_and_live_through_discord() {
    let (dir, fake, _bot) = boot().await;
    // Discord wants required options first: `/challenge` offers `variant` before the now
    // optional `opponent`; the new commands are registered.
    let registered = fake
        .registered_commands(T)
        .await
        .expect("commands registered");
    let commands = registered.as_array().unwrap();
    let challenge = commands.iter().find(|c| c["name"] == "challenge").unwrap();
    let options: Vec<(&str, bool)> = challenge["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap(),
                o["required"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(options[0], ("variant", true), "{options:?}");
    assert!(options.contains(&("opponent", false)), "{options:?}");
    for name in ["draw", "rematch", "live"] {
        assert!(
            commands.iter().any(|c| c["name"] == name),
            "/{name} missing"
        );
    }

    start_game(&fake, "ard-ri").await;
    // Brian offers a draw: Aoife alone is pinged, with Accept and Decline.
    let id = fake.slash(BOB, CH, "draw", json!([])).await;
    let offer = fake.response(id, T).await.unwrap();
    assert!(!offer.ephemeral(), "{:?}", offer.content());
    assert_eq!(allowed_users(&offer), vec![id_str(ALICE)]);
    assert_eq!(offer.custom_ids(), ["draw-yes:1", "draw-no:1"]);
    let offer_msg = fake.message_from(&offer);
    // Brian cannot accept his own offer; Cara cannot either: private refusals, buttons stay.
    for who in [BOB, CARA] {
        let click = fake.button(who, CH, offer_msg.clone(), "draw-yes:1").await;
        let r = fake.response(click, T).await.unwrap();
        assert!(r.ephemeral(), "{:?}", r.content());
        assert!(allowed_users(&r).is_empty());
    }
    // Offering again is refused privately and pings nobody.
    let again = fake.slash(BOB, CH, "draw", json!([])).await;
    let r = fake.response(again, T).await.unwrap();
    assert!(r.ephemeral() && allowed_users(&r).is_empty());
    assert!(r.content().unwrap().contains("already offered a draw"));
    // Aoife moves instead: the offer lapses, and its message loses its buttons.
    let (_, mv) = slash_move(&fake, ALICE, "d2-c2").await;
    let text = mv.content().unwrap_or_default();
    assert!(text.contains("draw offer lapses with this move"), "{text}");
    let offer_id = offer_msg["id"].as_str().unwrap().parse::<u64>().unwrap();
    let retired = fake
        .wait_for(T, |f| {
            f.message(offer_id).filter(|m| {
                m["components"].as_array().is_none_or(|c| c.is_empty())
                    && m["content"].as_str().unwrap_or("").contains("lapsed")
            })
        })
        .await;
    assert!(retired.is_some(), "{:?}", fake.message(offer_id));
    let late = fake.button(ALICE, CH, offer_msg, "draw-yes:1").await;
    assert!(fake.response(late, T).await.unwrap().ephemeral());

    // Aoife offers on Brian's turn; Brian accepts with the button: a draw by agreement.
    let id = fake.slash(ALICE, CH, "draw", json!([])).await;
    let offer = fake.response(id, T).await.unwrap();
    assert_eq!(allowed_users(&offer), vec![id_str(BOB)]);
    let click = fake
        .button(BOB, CH, fake.message_from(&offer), "draw-yes:1")
        .await;
    let upd = fake.response(click, T).await.unwrap();
    assert_eq!(upd.callback_type(), Some(7), "the offer loses its buttons");
    let end = pressed_reply(&fake, click).await;
    let text = end.content().unwrap_or_default();
    assert!(text.contains("Draw by agreement"), "{text}");
    let mut both = vec![id_str(ALICE), id_str(BOB)];
    both.sort();
    assert_eq!(allowed_users(&end), both);
    assert_eq!(end.custom_ids(), ["rematch:1"]);
    let end_msg = fake.message_from(&end);
    // Cara cannot ask for the rematch; Brian can: a challenge to Aoife, Brian moving first.
    let click = fake.button(CARA, CH, end_msg.clone(), "rematch:1").await;
    let r = fake.response(click, T).await.unwrap();
    assert!(r.ephemeral() && r.content().unwrap().contains("Only the players"));
    let click = fake.button(BOB, CH, end_msg, "rematch:1").await;
    fake.response(click, T).await.unwrap();
    let rematch = pressed_reply(&fake, click).await;
    let text = rematch.content().unwrap_or_default();
    assert!(
        text.contains(&format!("asks <@{}> for a rematch of game 1", ALICE.0))
            && text.contains(&format!("<@{}> starts", BOB.0)),
        "{text}"
    );
    assert_eq!(allowed_users(&rematch), vec![id_str(ALICE)]);
    assert_eq!(
        rematch.custom_ids(),
        ["accept:1", "decline:1"].map(|s| s.replace(":1", ":2"))
    );
    let click = fake
        .button(ALICE, CH, fake.message_from(&rematch), "accept:2")
        .await;
    fake.response(click, T).await.unwrap();
    let start = pressed_reply(&fake, click).await;
    assert!(start.content().unwrap().contains("Game on!"));

    // An open challenge, in a thread of its own: it pings nobody.
    let id = fake
        .slash(
            CARA,
            CH,
            "challenge",
            json!([{"name": "variant", "type": 3, "value": "hkot-1"}]),
        )
        .await;
    let note = fake.response(id, T).await.unwrap();
    assert!(!note.ephemeral(), "{:?}", note.content());
    let thread = fake
        .threads()
        .into_iter()
        .find(|t| t["name"].as_str().unwrap_or("").contains("cara vs anyone"))
        .expect("a thread for the open challenge");
    let thread: u64 = thread["id"].as_str().unwrap().parse().unwrap();
    let posted = fake.channel_messages(thread);
    assert_eq!(posted.len(), 1);
    let open = posted[0].clone();
    assert!(
        open["content"]
            .as_str()
            .unwrap()
            .contains("challenges anyone"),
        "{open}"
    );
    let post = fake
        .wait_request(
            |r| r.method == "POST" && r.path == format!("/api/v10/channels/{thread}/messages"),
            T,
        )
        .await
        .unwrap();
    assert!(
        allowed_users(&post).is_empty(),
        "an open challenge pings nobody: {:?}",
        post.data()
    );
    let am = &post.data().or(post.json.as_ref()).unwrap()["allowed_mentions"];
    assert!(
        am.is_object() && am["parse"].as_array().is_none_or(|p| p.is_empty()),
        "{am}"
    );
    let accept = open["components"][0]["components"][0]["custom_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(accept, "accept:3");
    let click = fake.button(CARA, thread, open.clone(), &accept).await;
    let r = fake.response(click, T).await.unwrap();
    assert!(r.ephemeral() && r.content().unwrap().contains("your own challenge"));
    let click = fake.button(BOB, thread, open, &accept).await;
    assert_eq!(
        fake.response(click, T).await.unwrap().callback_type(),
        Some(7)
    );
    let start = pressed_reply(&fake, click).await;
    assert!(start.content().unwrap().contains("Game on!"));

    // /live: public, both games linked, players named, nobody pinged.
    let id = fake.slash(CARA, CH, "live", json!([])).await;
    let live = fake.response(id, T).await.unwrap();
    assert!(!live.ephemeral());
    let text = live.content().unwrap();
    assert!(text.contains("(2)"), "{text}");
    assert!(text.contains(&format!("<#{thread}>")) && text.contains(&format!("<#{CH}>")));
    assert!(text.contains(&format!("<@{}>", CARA.0)), "{text}");
    assert!(allowed_users(&live).is_empty(), "no pings: {text}");
    let am = &live.data().unwrap()["allowed_mentions"];
    assert!(am["parse"].as_array().is_none_or(|p| p.is_empty()), "{am}");

    // Every announcement went out once.
    for text in [
        "Draw by agreement",
        "for a rematch of game 1",
        "challenges anyone",
    ] {
        assert_eq!(posts_containing(&fake, text), 1, "{text}");
    }
    drop(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_challenge_left_unanswered_expires_with_one_notice() {
    use tara_bot::bot::time::DAY;
    use tara_bot::store::{FirstChoice, NewChallenge, Store, OPEN_OPPONENT_ID};
    let dir = tempfile::tempdir().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    {
        let mut store = Store::open(dir.path().join("tara.db")).unwrap();
        store
            .write(|tx| -> Result<(), tara_bot::store::StoreError> {
                tx.upsert_user(&UserId::new(id_str(ALICE)), ALICE.1, now)?;
                tx.insert_challenge(
                    &NewChallenge {
                        server_id: &ServerId::new(FakeDiscord::GUILD_ID.to_string()),
                        channel_id: &ChannelId::new(CH.to_string()),
                        challenger_id: &UserId::new(id_str(ALICE)),
                        opponent_id: &UserId::new(OPEN_OPPONENT_ID),
                        variant: Variant::ArdRi,
                        scoring: Default::default(),
                        first: FirstChoice::Random,
                        is_match: false,
                        rated: false,
                        days_per_move: None,
                    },
                    now - 8 * DAY,
                )?;
                Ok(())
            })
            .unwrap();
    }
    let fake = FakeDiscord::start().await;
    let _bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready(T).await);
    let notice = channel_post_containing(&fake, CH, "open challenge #1")
        .await
        .expect("the expiry notice in the challenge's channel");
    assert_eq!(
        notice.content().unwrap(),
        format!(
            "<@{}>, your open challenge #1 (ard-ri) has expired: nobody accepted it within 7 \
             days. Its buttons no longer work; `/challenge` again to offer a new game.",
            ALICE.0
        )
    );
    assert_eq!(allowed_users(&notice), vec![id_str(ALICE)]);
    // Told once, however often the clock ticks.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(posts_containing(&fake, "your open challenge #1"), 1);
    let id = fake
        .slash(
            BOB,
            CH,
            "accept",
            json!([{"name": "challenge", "type": 4, "value": 1}]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    assert!(r.ephemeral() && r.content().unwrap().contains("expired"));
}

/// A sub-command interaction's options: `[{"name": sub, "type": 1, "options": options}]`.
fn sub(name: &str, options: Value) -> Value {
    json!([{"name": name, "type": 1, "options": options}])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_robin_through_discord_opens_one_thread_per_game_even_across_a_restart() {
    let (dir, fake, mut bot) = boot().await;
    const CARA: (u64, &str) = (1_000_000_000_000_000_003, "ciara");
    // `/tournament` is registered once, with its subcommands as SUB_COMMAND options.
    let cmds = fake.registered_commands(T).await.unwrap();
    let t = cmds
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "tournament")
        .expect("/tournament registered");
    let subs: Vec<&str> = t["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            assert_eq!(o["type"], 1);
            o["name"].as_str().unwrap()
        })
        .collect();
    assert!(
        subs.contains(&"create") && subs.contains(&"standings"),
        "{subs:?}"
    );
    let moderator = Invoker::new(7, "mona").moderator();
    let id = fake
        .slash(
            moderator.clone(),
            CH,
            "tournament",
            sub(
                "create",
                json!([
                    {"name": "name", "type": 3, "value": "Samhain"},
                    {"name": "variant", "type": 3, "value": "ard-ri"},
                    {"name": "system", "type": 3, "value": "round-robin"},
                ]),
            ),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    assert!(
        r.content().unwrap().contains("Tournament #1: Samhain"),
        "{:?}",
        r.content()
    );
    join_all(&fake, &[ALICE, BOB, CARA]).await;
    let s = fake
        .slash(moderator.clone(), CH, "tournament", sub("start", json!([])))
        .await;
    fake.response(s, T).await.unwrap();
    // Three players: three games (one per round, beside a bye), each in its own thread, whose
    // first message names both players; one message pings each player once, with links to
    // all of their games.
    let round = channel_post_containing(&fake, CH, "Your games:")
        .await
        .expect("the start's message");
    let threads = fake.threads();
    assert_eq!(threads.len(), 3, "{threads:?}");
    for th in &threads {
        assert!(th["name"].as_str().unwrap().starts_with('R'), "{th:?}");
        let id: u64 = th["id"].as_str().unwrap().parse().unwrap();
        let posted = fake.channel_messages(id);
        assert_eq!(posted.len(), 1, "thread {id}");
        assert!(posted[0]["content"].as_str().unwrap().contains("Game on!"));
        let first = channel_post_containing(&fake, id, "Game on!")
            .await
            .unwrap();
        assert!(allowed_users(&first).is_empty(), "no ping in thread {id}");
    }
    // That message links to every thread and pings each of the three players once.
    for th in &threads {
        let id = th["id"].as_str().unwrap();
        assert!(
            round.content().unwrap().contains(&format!("<#{id}>")),
            "{:?}",
            round.content()
        );
    }
    assert_eq!(allowed_users(&round).len(), 3);
    // A restart: no thread is opened twice, no message posted twice.
    drop(bot);
    bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready_count(2, T).await, "{}", bot_log(dir.path()));
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(fake.threads().len(), 3);
    // Play each game to its end: the second-named player resigns (with the button).
    for th in fake.threads() {
        resign_in_thread(&fake, &th, &[ALICE, BOB, CARA]).await;
    }
    let end = channel_post_containing(&fake, CH, "is over")
        .await
        .expect("the end");
    assert_eq!(allowed_users(&end).len(), 3, "each participant pinged once");
    assert_eq!(fake.threads().len(), 3);
    // Each game's thread is archived once its last message is posted (Discord holds 1,000
    // active threads a server): still there, no longer active.
    let ids: Vec<u64> = fake
        .threads()
        .iter()
        .map(|t| t["id"].as_str().unwrap().parse().unwrap())
        .collect();
    let all_archived = fake
        .wait_for(T, |f| ids.iter().all(|id| f.is_archived(*id)).then_some(()))
        .await;
    assert!(all_archived.is_some(), "{:?}", fake.threads());
    assert_eq!(fake.active_threads(FakeDiscord::GUILD_ID), 0);
    assert_eq!(fake.peak_active_threads(FakeDiscord::GUILD_ID), 3);
    // A later message in one (an analysis, a word after the game) unarchives it, and it
    // archives itself after a day of quiet.
    let (status, _, _) = raw(
        &fake,
        reqwest::Method::POST,
        &format!("/channels/{}/messages", ids[0]),
        Some(json!({"content": "good game"})),
    )
    .await;
    assert_eq!(status, 200);
    assert!(!fake.is_archived(ids[0]));
    fake.advance_clock(Duration::from_secs(86_400));
    assert!(fake.is_archived(ids[0]));
    assert_eq!(fake.invalid_requests(), 0, "{:?}", fake.refusals());
    drop(bot);
}

/// Requests that post to a channel's messages (not interaction answers).
fn posts_to(fake: &FakeDiscord, channel: u64) -> Vec<Recorded> {
    let path = format!("/api/v10/channels/{channel}/messages");
    fake.requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path == path)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_against_the_ai_in_a_thread_and_other_commands_answered_while_it_thinks() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    // Level 5 thinks for its whole time limit: 2 s here.
    let _bot = spawn_bot_env(
        &fake,
        dir.path(),
        &[("TARA_BOT_AI_MS", "2000"), ("TARA_BOT_AI_SEARCHES", "1")],
    );
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    // /play-ai opens a thread; the game starts there, pinging the player.
    let id = fake
        .slash(
            ALICE,
            CH,
            "play-ai",
            json!([
                {"name": "variant", "type": 3, "value": "hkot-1"},
                {"name": "level", "type": 4, "value": 1},
                {"name": "first", "type": 3, "value": "me"}
            ]),
        )
        .await;
    let r = fake.response(id, T).await.expect("/play-ai answered");
    let threads = fake.threads();
    assert_eq!(threads.len(), 1, "{threads:?}");
    let thread: u64 = threads[0]["id"].as_str().unwrap().parse().unwrap();
    assert!(
        r.content().unwrap().contains(&format!("<#{thread}>")),
        "{:?}",
        r.content()
    );
    let start = posts_to(&fake, thread);
    assert_eq!(start.len(), 1);
    let text = start[0].content().unwrap();
    assert!(
        text.contains("Game on!") && text.contains("**Tara-bot AI (level 1)**"),
        "{text}"
    );
    assert!(
        !text.contains("<@@"),
        "the AI is no Discord mention: {text}"
    );
    assert_eq!(allowed_users(&start[0]), vec![id_str(ALICE)]);
    // The player moves; the AI answers in the thread with a board, pinging the player.
    let skip = fake.requests().len();
    let mv = send_move(&fake, ALICE, thread, "D4").await;
    let r = fake.response(mv, T).await.unwrap();
    assert!(!r.ephemeral() && r.content().unwrap().contains("is thinking"));
    assert!(allowed_users(&r).is_empty(), "the AI is pinged by nobody");
    let path = format!("/api/v10/channels/{thread}/messages");
    let answer = fake
        .wait_request_after(skip, |r| r.method == "POST" && r.path == path, T)
        .await
        .expect("the AI's move");
    assert!(answer.at.duration_since(r.at) < Duration::from_millis(2000 + 1500));
    assert_eq!(answer.files.len(), 1, "the board");
    assert_eq!(png_size(&answer.files[0].1), (600, 690));
    assert_eq!(allowed_users(&answer), vec![id_str(ALICE)]);
    let content = answer.content().unwrap();
    assert!(
        content.starts_with("**Tara-bot AI") && content.contains("· Blue"),
        "{content}"
    );
    // Exactly one message for the move, even after the next tick.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(posts_to(&fake, thread).len(), 2);
    // /status reads like any game's.
    let st = fake.slash(ALICE, thread, "status", json!([])).await;
    let s = fake.response(st, T).await.unwrap();
    assert!(
        s.ephemeral() && s.content().unwrap().contains("2 moves played"),
        "{:?}",
        s.content()
    );

    // /challenge naming the bot itself: a game against the AI at level 3, in a thread. The AI
    // moves first and, at level 5, thinks for its whole limit.
    let me = fake.user_option(
        "opponent",
        (FakeDiscord::BOT_USER_ID, FakeDiscord::BOT_NAME),
    );
    let id = fake
        .slash(
            BOB,
            CH,
            "challenge",
            json!([me, {"name": "variant", "type": 3, "value": "ard-ri"}]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    assert!(!r.ephemeral(), "{:?}", r.content());
    assert_eq!(fake.threads().len(), 2);
    let thread3: u64 = fake.threads()[1]["id"].as_str().unwrap().parse().unwrap();
    let start = posts_to(&fake, thread3);
    let text = start[0].content().unwrap();
    assert!(
        text.contains("Tara-bot AI") && text.contains("level 3"),
        "{text}"
    );
    // A level-5 game, the AI first, in the other channel (no thread).
    let before = fake.requests().len();
    let id = fake
        .slash(
            BOB,
            FakeDiscord::OTHER_CHANNEL_ID,
            "play-ai",
            json!([
                {"name": "variant", "type": 3, "value": "sacred-hill-2"},
                {"name": "level", "type": 4, "value": 5},
                {"name": "first", "type": 3, "value": "opponent"},
                {"name": "thread", "type": 5, "value": false}
            ]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    assert!(
        r.content().unwrap().contains("is thinking"),
        "{:?}",
        r.content()
    );
    // While it searches, another command is answered at once.
    let st = fake.slash(ALICE, thread, "status", json!([])).await;
    let status = fake.response(st, T).await.unwrap();
    let ai = channel_post_containing(&fake, FakeDiscord::OTHER_CHANNEL_ID, "your move")
        .await
        .expect("the level-5 move");
    assert!(
        status.at < ai.at,
        "/status was answered before the search ended"
    );
    assert!(
        ai.at.duration_since(r.at) >= Duration::from_millis(1500),
        "level 5 used its time"
    );
    assert!(ai.at.duration_since(r.at) < Duration::from_millis(2000 + 1500));
    assert_eq!(allowed_users(&ai), vec![id_str(BOB)]);
    assert_eq!(posts_to(&fake, FakeDiscord::OTHER_CHANNEL_ID).len(), 1);
    assert!(fake.requests().len() > before);
    // A draw offer to the AI is refused privately.
    let d = fake.slash(ALICE, thread, "draw", json!([])).await;
    let d = fake.response(d, T).await.unwrap();
    assert!(d.ephemeral() && d.content().unwrap().contains("draw offers"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_game_against_the_ai_opens_no_thread_and_posts_nothing() {
    let (_dir, fake, _bot) = boot().await;
    // Manage Server allows one game against the AI at a time per player.
    let mona = Invoker::new(7, "mona").admin();
    let id = fake
        .slash(
            &mona,
            CH,
            "settings",
            json!([{"name": "max-ai-games", "type": 4, "value": 1}]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    assert!(
        r.ephemeral()
            && r.content()
                .unwrap()
                .contains("play 1 game against the AI at once"),
        "{:?}",
        r.content()
    );
    let play = |variant: &'static str| {
        json!([
            {"name": "variant", "type": 3, "value": variant},
            {"name": "level", "type": 4, "value": 1},
            {"name": "first", "type": 3, "value": "me"}
        ])
    };
    let id = fake.slash(ALICE, CH, "play-ai", play("hkot-1")).await;
    let r = fake.response(id, T).await.unwrap();
    assert!(!r.ephemeral(), "{:?}", r.content());
    let thread: u64 = fake.threads()[0]["id"].as_str().unwrap().parse().unwrap();
    let before = fake.requests().len();
    // A second, by /play-ai or by a challenge to the bot: refused privately, naming the game
    // in progress, before any thread is opened; nothing is posted or deleted anywhere.
    let me = fake.user_option(
        "opponent",
        (FakeDiscord::BOT_USER_ID, FakeDiscord::BOT_NAME),
    );
    let to_bot = json!([me, {"name": "variant", "type": 3, "value": "ard-ri"}]);
    for (name, options) in [("play-ai", play("ard-ri")), ("challenge", to_bot)] {
        let id = fake.slash(ALICE, CH, name, options).await;
        let r = fake.response(id, T).await.unwrap();
        assert!(r.ephemeral() && allowed_users(&r).is_empty(), "{name}");
        assert_eq!(
            r.content().unwrap(),
            format!(
                "You already have 1 game against the AI in progress on this server: #1 in \
                 <#{thread}>. This server allows 1 at a time: finish one of them (or `/resign` \
                 it) first."
            ),
            "{name}"
        );
    }
    assert_eq!(fake.threads().len(), 1, "no thread for a refused game");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after: Vec<_> = fake.requests()[before..]
        .iter()
        .filter(|q| q.path.contains("/channels/") && (q.method == "POST" || q.method == "DELETE"))
        .map(|q| format!("{} {}", q.method, q.path))
        .collect();
    assert!(after.is_empty(), "{after:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_while_the_ai_thinks_gives_exactly_one_ai_move() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    // Level 5 thinks for 3 s: the bot is killed in the middle of its search.
    let env = [("TARA_BOT_AI_MS", "3000")];
    let bot = spawn_bot_env(&fake, dir.path(), &env);
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    let id = fake
        .slash(
            ALICE,
            CH,
            "play-ai",
            json!([
                {"name": "variant", "type": 3, "value": "ard-ri"},
                {"name": "level", "type": 4, "value": 5},
                {"name": "first", "type": 3, "value": "opponent"},
                {"name": "thread", "type": 5, "value": false}
            ]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    assert!(
        r.content().unwrap().contains("is thinking"),
        "{:?}",
        r.content()
    );
    tokio::time::sleep(Duration::from_millis(1000)).await;
    drop(bot);
    assert!(posts_to(&fake, CH).is_empty(), "killed before the AI moved");
    let _bot = spawn_bot_env(&fake, dir.path(), &env);
    assert!(fake.wait_ready_count(2, T).await, "{}", bot_log(dir.path()));
    let path = format!("/api/v10/channels/{CH}/messages");
    let ai = fake
        .wait_request(|r| r.method == "POST" && r.path == path, T)
        .await
        .expect("the AI moves after the restart");
    assert!(ai.content().unwrap().contains("your move"));
    assert_eq!(allowed_users(&ai), vec![id_str(ALICE)]);
    // Once: the search started on start-up and the first tick's do not both play.
    tokio::time::sleep(Duration::from_millis(4000)).await;
    assert_eq!(posts_to(&fake, CH).len(), 1);
    let st = fake.slash(ALICE, CH, "status", json!([])).await;
    let s = fake.response(st, T).await.unwrap();
    assert!(
        s.content().unwrap().contains("1 move played"),
        "{:?}",
        s.content()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swiss_through_discord_created_by_the_tournament_role_pairs_each_round_once() {
    let (dir, fake, mut bot) = boot().await;
    const CARA: (u64, &str) = (1_000_000_000_000_000_003, "ciara");
    const ORGANISERS: u64 = 555;
    // An administrator names the role whose members may create tournaments.
    let mut admin = Invoker::new(8, "ailbhe");
    admin.permissions = FakeDiscord::PERMS_ADMIN.to_string();
    let s = fake
        .slash(
            admin,
            CH,
            "settings",
            json!([{"name": "tournament-role", "type": 3, "value": format!("<@&{ORGANISERS}>")}]),
        )
        .await;
    let r = fake.response(s, T).await.unwrap();
    assert!(
        r.content()
            .unwrap()
            .contains(&format!("members with <@&{ORGANISERS}>")),
        "{:?}",
        r.content()
    );
    // A member with that role (no moderator rights) creates a Swiss.
    let mut organiser = Invoker::new(9, "orla");
    organiser.roles.push(ORGANISERS);
    let create = |who: Invoker| {
        fake.slash(
            who,
            CH,
            "tournament",
            sub(
                "create",
                json!([
                    {"name": "name", "type": 3, "value": "Bealtaine"},
                    {"name": "variant", "type": 3, "value": "ard-ri"},
                    {"name": "system", "type": 3, "value": "swiss"},
                ]),
            ),
        )
    };
    let id = create(Invoker::new(10, "nobody")).await;
    let r = fake.response(id, T).await.unwrap();
    assert!(r.ephemeral() && r.content().unwrap().contains(&format!("<@&{ORGANISERS}>")));
    let id = create(organiser.clone()).await;
    let r = fake.response(id, T).await.unwrap();
    assert!(
        r.content().unwrap().contains("Tournament #1: Bealtaine"),
        "{:?}",
        r.content()
    );
    join_all(&fake, &[ALICE, BOB, CARA]).await;
    let s = fake
        .slash(organiser.clone(), CH, "tournament", sub("start", json!([])))
        .await;
    let r = fake.response(s, T).await.unwrap();
    assert!(
        r.content().unwrap().contains("3 players, 2 rounds"),
        "{:?}",
        r.content()
    );
    // Two rounds of one game and a bye each: a thread per game, opened once, and a round
    // message that pings only the two players of that round's game (the bye is named).
    for round in 1..=2 {
        let msg = channel_post_containing(&fake, CH, &format!("round {round}** of 2"))
            .await
            .expect("the round message");
        assert_eq!(allowed_users(&msg).len(), 2, "{:?}", msg.content());
        assert!(msg.content().unwrap().contains("has a bye"));
        let threads = fake.threads();
        assert_eq!(threads.len(), round, "{threads:?}");
        let th = &threads[round - 1];
        let thread: u64 = th["id"].as_str().unwrap().parse().unwrap();
        assert!(msg.content().unwrap().contains(&format!("<#{thread}>")));
        // One ping per player per round: the thread's first message pings nobody.
        let first = channel_post_containing(&fake, thread, "Game on!")
            .await
            .unwrap();
        assert!(allowed_users(&first).is_empty(), "{:?}", first.content());
        let name = th["name"].as_str().unwrap().to_string();
        assert!(name.starts_with(&format!("R{round} · ")), "{name}");
        // A restart between the round's start and its end changes nothing.
        drop(bot);
        bot = spawn_bot(&fake, dir.path());
        assert!(
            fake.wait_ready_count(round + 1, T).await,
            "{}",
            bot_log(dir.path())
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(fake.threads().len(), round);
        // The second-named player resigns; the next round is paired then.
        resign_in_thread(&fake, th, &[ALICE, BOB, CARA]).await;
    }
    let end = channel_post_containing(&fake, CH, "is over")
        .await
        .expect("the end");
    assert_eq!(allowed_users(&end).len(), 3, "each participant pinged once");
    assert_eq!(fake.threads().len(), 2, "each thread opened once");
    drop(bot);
}

/// Seeds a finished game of `variant` between Alice and Bob in the channel (random moves from
/// `seed`, played to the end); its id.
fn seed_finished(db: &Path, variant: Variant, seed: u64) -> i64 {
    use tara_bot::store::{MoveRow, NewGame, Store};
    let options = GameOptions::new(variant);
    let mut pos = Position::new(options);
    let mut rng = tara_bot::game::playout::Rng::new(seed);
    let mut moves = Vec::new();
    while pos.outcome().is_none() {
        let legal = pos.legal_moves();
        let m = legal[rng.below(legal.len())];
        pos.play(m).unwrap();
        moves.push(m);
    }
    let outcome = *pos.outcome().unwrap();
    let mut store = Store::open(db).unwrap();
    store
        .write(|tx| -> Result<_, tara_bot::store::StoreError> {
            let (a, b) = (id_str(ALICE), id_str(BOB));
            tx.upsert_user(&UserId::new(&a), ALICE.1, 0)?;
            tx.upsert_user(&UserId::new(&b), BOB.1, 0)?;
            let guild = FakeDiscord::GUILD_ID.to_string();
            let g = tx.insert_game(
                &NewGame {
                    server_id: &ServerId::new(&guild),
                    channel_id: &ChannelId::new(CH.to_string()),
                    options,
                    seats: BySide::new(&UserId::new(&a), &UserId::new(&b)),
                    match_id: None,
                    match_game: None,
                    pairing_id: None,
                    rated: false,
                    ai_levels: BySide::new(None, None),
                    days_per_move: None,
                },
                0,
            )?;
            for (ply, m) in moves.iter().enumerate() {
                tx.insert_move(
                    g,
                    &MoveRow {
                        ply: ply as u32,
                        notation: m.to_string(),
                        user_id: None,
                        created_at: 0,
                    },
                )?;
            }
            tx.finish_game(g, &outcome, 1_796_000_000_000)?;
            Ok(g.0)
        })
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyse_posts_its_progress_edits_it_and_posts_the_result_once() {
    let dir = tempfile::tempdir().unwrap();
    let game = seed_finished(&dir.path().join("tara.db"), Variant::Hkot1, 3);
    let fake = FakeDiscord::start().await;
    let _bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));

    let id = fake
        .slash(
            BOB,
            CH,
            "analyse",
            json!([{"name": "id", "type": 4, "value": game}, {"name": "level", "type": 4, "value": 3}]),
        )
        .await;
    let r = final_answer(&fake, id).await;
    assert!(!r.ephemeral());
    let text = r.content().unwrap_or_default().to_string();
    assert!(
        text.starts_with(&format!("Analysing game {game} at level 3: 0 of ")),
        "{text}"
    );
    let progress = fake.original(id).expect("the progress message");
    let mid = progress["id"].as_str().unwrap().to_string();
    let edit_path = format!("/api/v10/channels/{CH}/messages/{mid}");

    // The last edit, then the result: the chart with the swings, and the worst moment's board.
    let last = fake
        .wait_request(
            |q| {
                q.method == "PATCH"
                    && q.path == edit_path
                    && q.content().is_some_and(|c| c.starts_with("Analysed game"))
            },
            Duration::from_secs(60),
        )
        .await
        .unwrap_or_else(|| panic!("no last edit: {}", bot_log(dir.path())));
    assert!(last.status < 300, "{:?}", last.answer);
    let chart = format!("analysis-{game}-level-3.png");
    let results = fake
        .wait_for(Duration::from_secs(30), |f| {
            let posts: Vec<Recorded> = posts_to(f, CH)
                .into_iter()
                .filter(|p| {
                    p.content()
                        .is_some_and(|c| c.contains(&format!("game {game}")))
                })
                .collect();
            (posts.len() >= 2).then_some(posts)
        })
        .await
        .unwrap_or_else(|| panic!("no result: {}", bot_log(dir.path())));
    // Settle: anything posted twice would show by now.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let reqs = fake.requests();
    let edits: Vec<&Recorded> = reqs
        .iter()
        .filter(|q| q.method == "PATCH" && q.path == edit_path)
        .collect();
    let mut texts: Vec<&str> = edits.iter().filter_map(|q| q.content()).collect();
    let n = texts.len();
    texts.dedup();
    assert_eq!(texts.len(), n, "each edit is sent once: {texts:?}");
    assert!(edits.iter().all(|q| q.status < 300));
    // Edits only after the message was posted, and never pinging anyone.
    let posted_at = reqs.iter().position(|q| q.is_callback()).unwrap();
    assert!(reqs
        .iter()
        .position(|q| q.method == "PATCH" && q.path == edit_path)
        .is_some_and(|i| i > posted_at));
    assert!(edits.iter().all(|q| allowed_users(q).is_empty()));
    assert_eq!(
        fake.message(mid.parse().unwrap()).unwrap()["content"]
            .as_str()
            .unwrap(),
        last.content().unwrap()
    );
    let chart_posts: Vec<&Recorded> = reqs
        .iter()
        .filter(|q| q.files.iter().any(|(n, _)| *n == chart))
        .collect();
    assert_eq!(chart_posts.len(), 1, "the chart is posted once");
    let (name, png) = &chart_posts[0].files[0];
    assert_eq!(name, &chart);
    assert_eq!(png_size(png), (640, 300));
    assert!(chart_posts[0]
        .content()
        .unwrap()
        .contains(&format!("Analysis of game {game}")));
    let board_posts = results
        .iter()
        .filter(|p| p.content().is_some_and(|c| c.contains("The worst moment")))
        .count();
    assert_eq!(board_posts, 1, "the worst moment is posted once");
    assert_eq!(
        posts_to(&fake, CH)
            .iter()
            .filter(|p| p.content().is_some_and(|c| c.contains("The worst moment")))
            .count(),
        1
    );
}

/// Sends `/tournament sub` with these options in the channel as `who`; the answer.
async fn tournament(fake: &FakeDiscord, who: &Invoker, sub_name: &str, options: Value) -> Recorded {
    let id = fake
        .slash(who.clone(), CH, "tournament", sub(sub_name, options))
        .await;
    fake.response(id, T).await.expect("answered")
}

/// The bot started again on the same database: the fake's `n`-th connection.
async fn restart_bot(fake: &FakeDiscord, dir: &Path, n: usize) -> BotProcess {
    let bot = spawn_bot(fake, dir);
    assert!(fake.wait_ready_count(n, T).await, "{}", bot_log(dir));
    bot
}

/// Signs each player up for the channel's tournament, each answered publicly.
async fn join_all(fake: &FakeDiscord, players: &[(u64, &str)]) {
    for &p in players {
        fake.add_user(p.0, p.1);
        let j = fake
            .slash(p, CH, "tournament", sub("join", json!([])))
            .await;
        let r = fake.response(j, T).await.unwrap();
        assert!(!r.ephemeral(), "{:?}", r.content());
    }
}

/// Both players of the game in channel `id` make a first move (a Tara or an Ard Rí opening;
/// whoever is refused waits for the other), so that a resignation after it is a loss over the
/// board: before both have moved it is a forfeit (docs/rules.md §9).
async fn opening_in(fake: &FakeDiscord, id: u64, two: [(u64, &str); 2]) {
    for (first, second) in [("D4", "B2"), ("c1-c2", "c5-c6")] {
        for (i, who) in two.iter().enumerate() {
            let r = fake
                .response(send_move(fake, *who, id, first).await, T)
                .await;
            if r.is_some_and(|r| !r.ephemeral()) {
                let r = fake
                    .response(send_move(fake, two[1 - i], id, second).await, T)
                    .await
                    .unwrap();
                assert!(!r.ephemeral(), "{:?}", r.content());
                return;
            }
        }
    }
    panic!("no opening played in {id}");
}

/// Resigns the game in a tournament thread as its second-named player ("R1 · a vs b": b),
/// confirming with the button, once both players have made a first move.
async fn resign_in_thread(fake: &FakeDiscord, thread: &Value, players: &[(u64, &str)]) {
    let id: u64 = thread["id"].as_str().unwrap().parse().unwrap();
    let name = thread["name"].as_str().unwrap();
    let loser = *players
        .iter()
        .find(|p| name.ends_with(p.1))
        .unwrap_or_else(|| panic!("who plays in {name}"));
    let winner = *players
        .iter()
        .find(|p| name.contains(&format!(" {} vs ", p.1)))
        .unwrap_or_else(|| panic!("who plays in {name}"));
    opening_in(fake, id, [winner, loser]).await;
    resign_confirmed(fake, loser, id).await;
}

/// `who` resigns the game of `channel` and confirms with the button; the press's id (its
/// follow-ups announce the game's end).
async fn resign_confirmed(fake: &FakeDiscord, who: (u64, &str), channel: u64) -> u64 {
    let res = fake.slash(who, channel, "resign", json!([])).await;
    let ask = fake.response(res, T).await.unwrap();
    let button = ask.custom_ids()[0].clone();
    let click = fake
        .button(who, channel, fake.message_from(&ask), &button)
        .await;
    fake.response(click, T).await.unwrap();
    click
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_five_player_swiss_through_discord_with_a_forfeit_a_withdrawal_and_restarts() {
    use tara_bot::bot::time::DAY;
    use tara_bot::store::{PairingResult, Store};
    let (dir, fake, mut bot) = boot().await;
    const DARA: (u64, &str) = (1_000_000_000_000_000_007, "dara");
    const EOIN: (u64, &str) = (1_000_000_000_000_000_008, "eoin");
    let players = [ALICE, BOB, CARA, DARA, EOIN];
    let organiser = Invoker::new(9, "orla").moderator();
    let options = json!([
        {"name": "name", "type": 3, "value": "Samhain"},
        {"name": "variant", "type": 3, "value": "ard-ri"},
        {"name": "system", "type": 3, "value": "swiss"},
        {"name": "rounds", "type": 4, "value": 3},
        {"name": "days", "type": 3, "value": "1"},
    ]);
    let r = tournament(&fake, &organiser, "create", options).await;
    assert!(!r.ephemeral(), "{:?}", r.content());
    join_all(&fake, &players).await;
    let r = tournament(&fake, &organiser, "start", json!([])).await;
    assert!(
        r.content().unwrap().contains("5 players, 3 rounds"),
        "{:?}",
        r.content()
    );
    let db = dir.path().join("tara.db");
    let mut restarts = 1;

    // Round 1: two games and a bye. One game ends by resignation; in the other nobody moves,
    // and while the bot is down the first mover's day runs out: on restart, a forfeit.
    let msg = channel_post_containing(&fake, CH, "round 1** of 3")
        .await
        .expect("round 1's message");
    assert_eq!(allowed_users(&msg).len(), 4, "{:?}", msg.content());
    assert!(msg.content().unwrap().contains("has a bye"));
    let threads = threads_by_board(&fake, &db);
    assert_eq!(threads.len(), 2, "{threads:?}");
    resign_in_thread(&fake, &threads[0], &players).await;
    drop(bot);
    let forfeited: u64 = threads[1]["id"].as_str().unwrap().parse().unwrap();
    {
        let mut store = Store::open(&db).unwrap();
        store
            .write(|tx| -> Result<(), tara_bot::store::StoreError> {
                let pairing = tx
                    .pairings(TournamentId(1), Some(1))?
                    .into_iter()
                    .find(|p| {
                        p.thread_id.as_ref().map(ChannelId::as_str) == Some(&forfeited.to_string())
                    })
                    .expect("the pairing of the thread");
                let game = tx.pairing_games(pairing.id)?.remove(0);
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_millis() as i64;
                tx.start_turn(game.id, now - 2 * DAY, Some((now - 2 * DAY, now - DAY)))
            })
            .unwrap();
    }
    restarts += 1;
    bot = restart_bot(&fake, dir.path(), restarts).await;
    let forfeit = fake
        .wait_request(
            |r| {
                r.method == "POST"
                    && r.content()
                        .is_some_and(|c| c.contains("before a first move: a forfeit"))
            },
            T,
        )
        .await
        .expect("the forfeit announced");
    assert!(!allowed_users(&forfeit).is_empty());

    // Round 2, paired once by the forfeit: its game threads, and one player is withdrawn by
    // the organiser with their game in progress (resigned for them).
    let msg = channel_post_containing(&fake, CH, "round 2** of 3")
        .await
        .unwrap_or_else(|| {
            let posts: Vec<_> = fake
                .requests()
                .into_iter()
                .map(|r| format!("{} {} {:?}", r.method, r.path, r.content()))
                .collect();
            panic!("no round 2 message: {posts:#?}\n{}", bot_log(dir.path()))
        });
    assert_eq!(allowed_users(&msg).len(), 4, "{:?}", msg.content());
    let threads = threads_by_board(&fake, &db);
    assert_eq!(threads.len(), 4, "{threads:?}");
    let name = threads[2]["name"].as_str().unwrap().to_string();
    let withdrawn = *players.iter().find(|p| name.ends_with(p.1)).unwrap();
    // Both have moved in it, so it is resigned over the board, not forfeited (docs/rules.md §9).
    let other = *players
        .iter()
        .find(|p| name.contains(&format!(" {} vs ", p.1)))
        .unwrap();
    let id: u64 = threads[2]["id"].as_str().unwrap().parse().unwrap();
    opening_in(&fake, id, [other, withdrawn]).await;
    let player = fake.user_option("player", withdrawn);
    let r = tournament(&fake, &organiser, "withdraw", json!([player])).await;
    assert!(
        r.content().unwrap().contains("is resigned"),
        "{:?}",
        r.content()
    );
    // A restart mid-round: nothing is paired or posted twice.
    drop(bot);
    restarts += 1;
    bot = restart_bot(&fake, dir.path(), restarts).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(fake.threads().len(), 4);
    resign_in_thread(&fake, &threads[3], &players).await;

    // Round 3: four players left, two games, no bye; then the end.
    let msg = channel_post_containing(&fake, CH, "round 3** of 3")
        .await
        .expect("round 3's message");
    assert_eq!(allowed_users(&msg).len(), 4, "{:?}", msg.content());
    assert!(
        !allowed_users(&msg).contains(&id_str(withdrawn)),
        "the withdrawn player is not paired again"
    );
    let threads = threads_by_board(&fake, &db);
    assert_eq!(threads.len(), 6, "{threads:?}");
    for th in &threads[4..] {
        resign_in_thread(&fake, th, &players).await;
    }
    let end = channel_post_containing(&fake, CH, "is over")
        .await
        .expect("the end");
    assert_eq!(allowed_users(&end).len(), 5, "each participant pinged once");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(fake.threads().len(), 6, "each thread opened once");

    // The stored rounds: no rematch, two different players with a bye, one forfeit.
    let mut store = Store::open(&db).unwrap();
    let pairings = store.read(|tx| tx.pairings(TournamentId(1), None)).unwrap();
    let mut met = std::collections::HashSet::new();
    let mut byes = Vec::new();
    for p in &pairings {
        match &p.player1 {
            Some(b) => {
                let mut key = [p.player0.clone(), b.clone()];
                key.sort();
                assert!(met.insert(key), "a rematch: {pairings:?}");
            }
            None => byes.push(p.player0.clone()),
        }
    }
    assert_eq!(byes.len(), 2);
    assert_ne!(byes[0], byes[1], "nobody gets two byes");
    assert_eq!(
        pairings
            .iter()
            .filter(|p| matches!(
                p.result,
                Some(PairingResult::Forfeit0 | PairingResult::Forfeit1)
            ))
            .count(),
        1
    );
    drop(bot);
}

/// Issue 28: a player named like a Markdown trap (a masked link, `@everyone`, a code fence,
/// bold), and one whose name starts with a fence, through every command that shows names:
/// every text the bot sends Discord keeps its code blocks closed and shows no link, bold text
/// or ping of everyone, and every message's allowed mentions leave out everyone and roles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_name_stays_text_through_every_command_that_shows_names() {
    use common::{assert_stays_text, FENCE, NITRO};
    use tara_bot::bot::{escape_code, escape_markdown};
    let (_dir, fake, _bot) = boot().await;
    let mal: (u64, &str) = (1_000_000_000_000_000_011, NITRO);
    let fen: (u64, &str) = (1_000_000_000_000_000_012, FENCE);
    for u in [mal, fen, BOB, CARA] {
        fake.add_user(u.0, u.1);
    }
    let mona = Invoker::new(7, "mona").admin();
    // A two-game match of Brian's against the name, accepted with the button.
    let id = fake
        .slash(
            BOB,
            CH,
            "challenge",
            json!([fake.user_option("opponent", mal),
                   {"name": "variant", "type": 3, "value": "hkot-1"},
                   {"name": "first", "type": 3, "value": "me"},
                   {"name": "match", "type": 5, "value": true},
                   {"name": "thread", "type": 5, "value": false}]),
        )
        .await;
    let r = fake.response(id, T).await.unwrap();
    let click = fake
        .button(mal, CH, fake.message_from(&r), &r.custom_ids()[0])
        .await;
    fake.response(click, T).await.unwrap();
    fake.wait_followups(click, 1, T).await;
    let options = GameOptions::new(Variant::Hkot1);
    for (i, m) in player_moves(options, 3).into_iter().take(3).enumerate() {
        let who = if i % 2 == 0 { BOB } else { mal };
        let (_, r) = slash_move(&fake, who, &m.to_string()).await;
        assert!(!r.ephemeral(), "{:?}", r.content());
    }
    let user = |u: (u64, &str)| fake.user_option("user", u);
    let id = |n: i64| json!([{"name": "id", "type": 4, "value": n}]);
    let commands: Vec<(Invoker, &str, Value)> = vec![
        (BOB.into(), "status", json!([])),
        (BOB.into(), "board", json!([])),
        (BOB.into(), "record", json!([])),
        (BOB.into(), "games", json!([])),
        (mal.into(), "games", json!([])),
        (CARA.into(), "live", json!([])),
        (CARA.into(), "profile", json!([user(BOB)])),
        (CARA.into(), "profile", json!([user(mal)])),
        (CARA.into(), "game", id(1)),
        (CARA.into(), "export", id(1)),
        (mal.into(), "draw", json!([])),
        (
            BOB.into(),
            "draw",
            json!([{"name": "answer", "type": 3, "value": "decline"}]),
        ),
        (BOB.into(), "resign", json!([])),
        (BOB.into(), "status", json!([])),
        (CARA.into(), "history", json!([user(mal)])),
        (CARA.into(), "leaderboard", json!([])),
        (
            mona.clone(),
            "abort",
            json!([{"name": "reason", "type": 3, "value": format!("{NITRO} <@{}>", ALICE.0)}]),
        ),
        (mona.clone(), "audit", json!([])),
    ];
    let mut answered = 0;
    let mut answers = Vec::new();
    for (who, name, options) in commands {
        let i = fake.slash(who, CH, name, options).await;
        let r = fake
            .response(i, T)
            .await
            .unwrap_or_else(|| panic!("/{name} answered"));
        assert!(r.content().is_some(), "/{name}: {r:?}");
        answered += 1;
        answers.push((name, r.content().unwrap_or_default().to_string()));
        if name == "resign" {
            // Confirmed with the button: game 1 ends, game 2 of the match starts.
            let click = fake
                .button(BOB, CH, fake.message_from(&r), &r.custom_ids()[0])
                .await;
            fake.response(click, T).await.unwrap();
            fake.wait_followups(click, 1, T).await;
        }
    }
    // The name shows as written: escaped in text, its backticks kept apart in the record.
    let answer = |name: &str| {
        answers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.clone())
            .unwrap_or_default()
    };
    let record = answer("record");
    assert!(
        record.contains(&format!(
            "```\n# game 1 · Red brian vs Blue {}\n",
            escape_code(NITRO)
        )),
        "{record}"
    );
    let games = answer("games");
    assert!(games.contains(&escape_markdown(NITRO)), "{games}");
    // A round robin named like the name, with both names in it.
    let create = json!([{"name": "name", "type": 3, "value": NITRO},
                        {"name": "variant", "type": 3, "value": "hkot-1"},
                        {"name": "system", "type": 3, "value": "round-robin"}]);
    let r = tournament(&fake, &mona, "create", create).await;
    assert!(!r.ephemeral(), "{:?}", r.content());
    join_all(&fake, &[mal, fen, BOB]).await;
    let r = tournament(&fake, &mona, "start", json!([])).await;
    assert!(!r.ephemeral(), "{:?}", r.content());
    for sub_name in ["info", "pairings", "standings", "list", "export"] {
        let r = tournament(&fake, &Invoker::new(CARA.0, CARA.1), sub_name, json!([])).await;
        assert!(r.content().is_some(), "/tournament {sub_name}: {r:?}");
        answered += 1;
    }
    // The standings table shows the fenced name, its backticks apart.
    let standings = fake
        .requests()
        .into_iter()
        .filter_map(|q| q.content().map(str::to_string))
        .find(|c| c.contains("Player") && c.contains("Score"))
        .expect("the standings table");
    assert!(
        standings.contains("f`\u{200D}`\u{200D}`**y**"),
        "{standings}"
    );
    // Every text the bot sent, posted, answered, followed up or edited.
    let sent: Vec<Recorded> = fake
        .requests()
        .into_iter()
        .filter(|q| q.content().is_some())
        .collect();
    assert!(sent.len() > answered, "{}", sent.len());
    for q in &sent {
        let label = format!("{} {}", q.method, q.path);
        assert_stays_text(&label, q.content().unwrap());
        let am = &q.data().unwrap()["allowed_mentions"];
        assert!(am.is_object(), "{label}: no allowed mentions: {:?}", q.json);
        let parse: Vec<&str> = am["parse"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert!(
            !parse.contains(&"everyone") && !parse.contains(&"roles"),
            "{label}: {am}"
        );
    }
}

#[test]
fn an_empty_token_file_is_refused_before_anything_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "  \n\n").unwrap();
    let out = Proc::new(env!("CARGO_BIN_EXE_tara-bot"))
        .arg("run")
        .current_dir(dir.path())
        .env_remove("DISCORD_TOKEN")
        .env_remove("TARA_BOT_CONFIG")
        .env("DISCORD_TOKEN_FILE", &file)
        .env("DISCORD_PROXY_URL", "http://127.0.0.1:9")
        .env("TARA_BOT_DB", dir.path().join("tara.db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!("The token file {} is empty", file.display())),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("token")],
        "nothing created"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_unreachable_at_start_up_is_tried_again_until_it_answers() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    // Discord answers nothing useful to the first two tries.
    fake.fail(Fault::new("GET", "/gateway/bot", 503, 0, "Service Unavailable").times(2));
    let bot = spawn_bot(&fake, dir.path());
    assert!(
        fake.wait_ready(Duration::from_secs(30)).await,
        "no READY: {}",
        bot_log(dir.path())
    );
    let log = bot_log(dir.path());
    assert_eq!(log.matches("cannot reach Discord").count(), 2, "{log}");
    assert!(log.contains("attempt=2"), "{log}");
    drop(bot);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_token_at_start_up_ends_the_bot_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    fake.fail(Fault::new(
        "GET",
        "/gateway/bot",
        401,
        0,
        "401: Unauthorized",
    ));
    let mut bot = spawn_bot(&fake, dir.path());
    let mut status = None;
    for _ in 0..200 {
        status = bot.0.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(1),
        "{}",
        bot_log(dir.path())
    );
    let log = bot_log(dir.path());
    assert!(
        log.contains("error: Discord refused the bot token (401 Unauthorized)"),
        "{log}"
    );
    assert!(!log.contains("cannot reach Discord"), "{log}");
}

/// `tara-bot run --shards A-B --shard-total N`: a process connects only its shards (serenity's
/// shard range, its end included), so a guild is served by the process running the guild's
/// shard, `(guild_id >> 22) % N`, and by no other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_runs_only_its_range_of_shards() {
    let fake = FakeDiscord::start_with_shards(2).await;
    let ours = (FakeDiscord::GUILD_ID >> 22) % 2;
    let other = 1 - ours;
    let (dir, other_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let range = |s: u64| format!("{s}-{s}");
    let r = range(other);
    let _elsewhere = spawn_bot_run(
        &fake,
        other_dir.path(),
        &[],
        &["--shards", &r, "--shard-total", "2"],
    );
    assert!(
        fake.wait_ready_count(1, T).await,
        "no READY: {}",
        bot_log(other_dir.path())
    );
    let shards = |f: &FakeDiscord| -> Vec<Value> {
        f.identifies().iter().map(|d| d["shard"].clone()).collect()
    };
    assert_eq!(shards(&fake), vec![json!([other, 2])]);
    // A command in the guild waits: no process runs the guild's shard.
    let id = fake.slash(ALICE, CH, "rules", json!([])).await;
    assert!(fake.response(id, Duration::from_secs(3)).await.is_none());
    // The process of the guild's shard connects it alone and answers the command.
    let r = range(ours);
    let _ours = spawn_bot_run(
        &fake,
        dir.path(),
        &[],
        &["--shards", &r, "--shard-total", "2"],
    );
    assert!(
        fake.wait_ready(T).await,
        "no READY: {}",
        bot_log(dir.path())
    );
    assert_eq!(shards(&fake), vec![json!([other, 2]), json!([ours, 2])]);
    let answer = final_answer(&fake, id).await;
    assert!(answer.content().is_some_and(|c| !c.is_empty()));
}

/// A shard range beyond the total, or either flag alone, is refused before anything starts.
#[test]
fn a_bad_shard_range_is_refused() {
    let run = |args: &[&str]| {
        let out = Proc::new(env!("CARGO_BIN_EXE_tara-bot"))
            .arg("run")
            .args(args)
            .env_remove("DISCORD_TOKEN")
            .env_remove("DISCORD_TOKEN_FILE")
            .env_remove("TARA_BOT_CONFIG")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, err) = run(&["--shards", "0-2", "--shard-total", "2"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("shards are numbered 0 to 1"), "{err}");
    let (code, err) = run(&["--shards", "3-1", "--shard-total", "4"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("the first shard comes after the last"),
        "{err}"
    );
    let (code, err) = run(&["--shards", "0-1"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--shard-total"), "{err}");
}

/// `/note` through Discord: written and read back privately (the bot's answer is ephemeral, pings
/// nobody, and nothing reaches the channel); the opponent's `/note` shows none of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_note_is_written_and_read_privately_through_discord() {
    let (_dir, fake, _bot) = boot().await;
    start_game(&fake, "hkot-1").await;
    let text = json!([{"name": "text", "type": 3, "value": "Hold the **north** hill"}]);
    let id = fake.slash(ALICE, CH, "note", text).await;
    let saved = final_answer(&fake, id).await;
    assert!(saved.ephemeral(), "{:?}", saved.content());
    assert!(
        saved.content().unwrap().contains("saved"),
        "{:?}",
        saved.content()
    );
    let id = fake.slash(ALICE, CH, "note", json!([])).await;
    let shown = final_answer(&fake, id).await;
    assert!(shown.ephemeral());
    let content = shown.content().unwrap();
    // Shown as typed: its Markdown escaped.
    assert!(
        content.contains("> Hold the \\*\\*north\\*\\* hill"),
        "{content}"
    );
    assert!(allowed_users(&shown).is_empty());
    let id = fake.slash(BOB, CH, "note", json!([])).await;
    let theirs = final_answer(&fake, id).await;
    assert!(theirs.ephemeral());
    let content = theirs.content().unwrap();
    assert!(
        content.contains("no note") && !content.contains("north"),
        "{content}"
    );
    assert!(
        !posts_to(&fake, CH)
            .iter()
            .any(|p| p.content().is_some_and(|c| c.contains("north"))),
        "the note never reaches the channel"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conditional_move_is_stored_privately_and_played_at_once_through_discord() {
    let (_dir, fake, _bot) = boot().await;
    start_game(&fake, "hkot-1").await;
    let (_, r) = slash_move(&fake, ALICE, "D4").await;
    assert!(!r.ephemeral(), "{:?}", r.content());
    // Bob's expected move and Alice's reply, from the engine.
    let mut pos = Position::new(GameOptions::new(Variant::Hkot1));
    pos.play_text("D4").unwrap();
    let theirs = pos.legal_moves()[0];
    pos.play(theirs).unwrap();
    let mine = pos.legal_moves()[0];
    let line = format!("{theirs} {mine}");
    let add = sub("add", json!([{"name": "line", "type": 3, "value": line}]));
    let id = fake.slash(ALICE, CH, "conditional", add).await;
    let stored = final_answer(&fake, id).await;
    assert!(stored.ephemeral(), "{:?}", stored.content());
    assert!(allowed_users(&stored).is_empty());
    let content = stored.content().unwrap();
    assert!(content.starts_with("Stored"), "{content}");
    // The tree, privately, with the board of the main line.
    let id = fake
        .slash(ALICE, CH, "conditional", sub("list", json!([])))
        .await;
    let listed = final_answer(&fake, id).await;
    assert!(listed.ephemeral());
    let content = listed.content().unwrap();
    assert!(
        content.contains(&format!("if `{theirs}`, `{mine}`")),
        "{content}"
    );
    assert_eq!(listed.files.len(), 1, "the main line's board");
    // Bob plays as Alice expected: his answer, then her reply in the channel, pinging him.
    let (id, r) = slash_move(&fake, BOB, &theirs.to_string()).await;
    assert!(!r.ephemeral(), "{:?}", r.content());
    let reply = fake.wait_followups(id, 1, T).await.remove(0);
    let content = reply.content().unwrap();
    assert!(
        content.contains("(played by conditional move)"),
        "{content}"
    );
    assert_eq!(allowed_users(&reply), vec![id_str(BOB)]);
    assert_eq!(reply.files.len(), 1);
    // The line was never shown in the channel before it was played.
    assert!(!posts_to(&fake, CH)
        .iter()
        .any(|p| p.content().is_some_and(|c| c.contains("Stored"))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_is_stepped_through_buttons_and_a_dialog_through_discord() {
    let (_dir, fake, _bot) = boot().await;
    start_game(&fake, "hkot-1").await;
    let mut pos = Position::new(GameOptions::new(Variant::Hkot1));
    for who in [ALICE, BOB, ALICE, BOB] {
        let mv = pos.legal_moves()[0];
        let (_, r) = slash_move(&fake, who, &mv.to_string()).await;
        assert!(!r.ephemeral(), "{:?}", r.content());
        pos.play(mv).unwrap();
    }
    // The public board with its stepping buttons.
    let id = fake
        .slash(
            ALICE,
            CH,
            "game",
            json!([{"name": "id", "type": 4, "value": 1}]),
        )
        .await;
    let board = final_answer(&fake, id).await;
    assert!(!board.ephemeral());
    let ids = board.custom_ids();
    assert_eq!(ids.len(), 3, "{ids:?}");
    assert!(ids[0].starts_with("step:1:0:s:") && ids[1].starts_with("step:1:3:s:"));
    assert!(ids[2].starts_with("step-jump:1:s:"));
    // Bob steps back: a private copy, with its own picture.
    let click = fake
        .button(BOB, CH, fake.message_from(&board), &ids[1])
        .await;
    let copy = fake.response(click, T).await.expect("answered");
    assert_eq!(copy.callback_type(), Some(4));
    assert!(copy.ephemeral());
    assert!(
        copy.content().unwrap().contains("Move 3, "),
        "{:?}",
        copy.content()
    );
    assert_eq!(copy.files.len(), 1);
    let copy_ids = copy.custom_ids();
    assert!(copy_ids.iter().all(|i| i.contains(":p:")), "{copy_ids:?}");
    // The public message keeps its buttons for the other readers.
    let public = fake
        .message(id_of_message(&fake.message_from(&board)))
        .unwrap();
    assert_eq!(
        public["components"][0]["components"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // On the copy, ▶ replaces it in place, picture and all.
    let copy_msg = fake.message_from(&copy);
    let next = copy_ids
        .iter()
        .find(|i| i.starts_with("step:1:4:"))
        .unwrap();
    let click = fake.button(BOB, CH, copy_msg.clone(), next).await;
    let update = fake.response(click, T).await.expect("answered");
    assert_eq!(update.callback_type(), Some(7));
    assert!(
        update.content().unwrap().contains("Move 4, "),
        "{:?}",
        update.content()
    );
    assert_eq!(update.files.len(), 1);
    // The jump opens a dialog; its answer replaces the copy with that move's board.
    let jump = copy_ids
        .iter()
        .find(|i| i.starts_with("step-jump:"))
        .unwrap();
    let click = fake.button(BOB, CH, copy_msg.clone(), jump).await;
    let dialog = fake.response(click, T).await.expect("answered");
    assert_eq!(dialog.callback_type(), Some(9), "a modal");
    let data = dialog.data().unwrap();
    assert_eq!(data["custom_id"], json!(jump));
    let input = data["components"][0]["components"][0]["custom_id"]
        .as_str()
        .unwrap()
        .to_string();
    let submit = fake
        .submit_dialog(BOB, CH, copy_msg.clone(), jump, &input, "2")
        .await;
    let at = fake.response(submit, T).await.expect("answered");
    assert_eq!(at.callback_type(), Some(7));
    assert!(
        at.content().unwrap().contains("Move 2, "),
        "{:?}",
        at.content()
    );
    assert_eq!(at.files.len(), 1);
    // A value that does not read is answered privately.
    let submit = fake
        .submit_dialog(BOB, CH, copy_msg, jump, &input, "two")
        .await;
    let no = fake.response(submit, T).await.expect("answered");
    assert!(no.ephemeral());
    assert!(no.content().unwrap().contains("not a move number"));
}

fn id_of_message(m: &Value) -> u64 {
    m["id"].as_str().and_then(|s| s.parse().ok()).unwrap()
}

/// Gives `who` a daily digest at midnight UTC, in the bot's database under `dir`: its time
/// has come today, so the bot's next clock check sends it.
fn digest_at_midnight(dir: &Path, who: (u64, &str)) {
    let mut store = tara_bot::store::Store::open(dir.join("tara.db")).unwrap();
    store
        .write(|tx| -> Result<(), tara_bot::store::StoreError> {
            tx.set_user_setting(&UserId::new(id_str(who)), UserSetting::DIGEST_TIME, "00:00")
        })
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_digest_is_a_direct_message_and_closed_ones_are_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    // The clock is looked at every second (a quarter of the lease).
    let _bot = spawn_bot_env(&fake, dir.path(), &[("TARA_BOT_LEASE_MS", "4000")]);
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    start_game(&fake, "hkot-1").await;
    // Alice (to move) and Bob have a digest at midnight UTC, which has come today; Bob's
    // direct messages are closed.
    fake.close_dms(BOB.0);
    digest_at_midnight(dir.path(), ALICE);
    let digest = fake
        .wait_for(T, |f| {
            f.dms(ALICE.0).into_iter().find(|m| {
                m["content"]
                    .as_str()
                    .is_some_and(|c| c.contains("daily digest"))
            })
        })
        .await
        .unwrap_or_else(|| panic!("no digest: {}", bot_log(dir.path())));
    let content = digest["content"].as_str().unwrap();
    assert!(content.contains("it is your move in 1 game"), "{content}");
    assert!(content.contains(&format!("<#{CH}>")), "{content}");
    assert_eq!(digest["attachments"].as_array().map(Vec::len), Some(1));
    // Alice moves: now Bob is to move, and his digest falls due.
    let (_, r) = slash_move(&fake, ALICE, "D4").await;
    assert!(!r.ephemeral());
    digest_at_midnight(dir.path(), BOB);
    let said = |f: &FakeDiscord| {
        posts_to(f, CH)
            .into_iter()
            .filter(|p| {
                p.content()
                    .is_some_and(|c| c.contains("could not reach you"))
            })
            .collect::<Vec<_>>()
    };
    let notice = fake
        .wait_for(T, |f| said(f).into_iter().next())
        .await
        .unwrap_or_else(|| panic!("no notice: {}", bot_log(dir.path())));
    assert_eq!(allowed_users(&notice), vec![id_str(BOB)]);
    // Said once, and one digest each: none more in the next seconds of ticks.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(said(&fake).len(), 1);
    let digests = fake
        .dms(ALICE.0)
        .iter()
        .filter(|m| {
            m["content"]
                .as_str()
                .is_some_and(|c| c.contains("daily digest"))
        })
        .count();
    assert_eq!(digests, 1);
    assert!(fake.dms(BOB.0).is_empty());
}

/// Issue 45: a digest sent by DM whose answer was lost, the bot stopped before recording it
/// and started again after Discord forgot the nonce (5 minutes): the bot finds it in the DM
/// channel and does not send it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_digest_whose_answer_was_lost_is_not_sent_again_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    let bot = spawn_bot_env(&fake, dir.path(), &[("TARA_BOT_LEASE_MS", "4000")]);
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    start_game(&fake, "hkot-1").await;
    let digests = |f: &FakeDiscord| {
        f.dms(ALICE.0)
            .iter()
            .filter(|m| {
                m["content"]
                    .as_str()
                    .is_some_and(|c| c.contains("daily digest"))
            })
            .count()
    };
    // Every try of the DM goes through, but its answer is lost.
    fake.fail(
        Fault::new("POST", "/messages", 500, 0, "Internal Server Error")
            .times(4)
            .after_doing_it(),
    );
    digest_at_midnight(dir.path(), ALICE);
    faults_spent(&fake).await;
    drop(bot);
    assert_eq!(digests(&fake), 1, "Discord has it once");
    assert_eq!(
        stored(dir.path()).1,
        1,
        "owed: the bot never heard it was sent"
    );
    fake.forget_nonces();
    let _bot = spawn_bot_env(&fake, dir.path(), &[("TARA_BOT_LEASE_MS", "4000")]);
    assert!(fake.wait_ready_count(2, T).await);
    assert!(
        fake.wait_for(T, |_| (stored(dir.path()).1 == 0).then_some(()))
            .await
            .is_some(),
        "recorded as delivered after the restart: {}",
        bot_log(dir.path())
    );
    assert_eq!(digests(&fake), 1, "still one digest");
}

/// Sends `/ladder sub` with these options in the channel as `who`; the answer.
async fn ladder(fake: &FakeDiscord, who: &Invoker, sub_name: &str, options: Value) -> Recorded {
    let id = fake
        .slash(who.clone(), CH, "ladder", sub(sub_name, options))
        .await;
    fake.response(id, T).await.expect("answered")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ladder_challenge_through_discord_starts_its_game_in_a_thread_and_the_winner_climbs() {
    let (dir, fake, bot) = boot().await;
    let moderator = Invoker::new(7, "mona").moderator();
    let r = ladder(
        &fake,
        &moderator,
        "create",
        json!([
            {"name": "name", "type": 3, "value": "Autumn"},
            {"name": "variant", "type": 3, "value": "hkot-1"},
        ]),
    )
    .await;
    assert!(
        r.content().unwrap().contains("Ladder #1: Autumn"),
        "{:?}",
        r.content()
    );
    for p in [ALICE, BOB] {
        fake.add_user(p.0, p.1);
        let id = fake.slash(p, CH, "ladder", sub("join", json!([]))).await;
        let r = fake.response(id, T).await;
        let r = r.unwrap_or_else(|| panic!("{}", bot_log(dir.path())));
        assert!(!r.ephemeral(), "{:?}", r.content());
    }
    // Bob (rank 2) challenges Alice (rank 1): the game starts at once in a new thread, which
    // pings both; the answer says so.
    let player = fake.user_option("player", ALICE);
    let r = ladder(
        &fake,
        &Invoker::new(BOB.0, BOB.1),
        "challenge",
        json!([player]),
    )
    .await;
    assert!(!r.ephemeral(), "{:?}", r.content());
    let threads = fake.threads();
    assert_eq!(threads.len(), 1, "{threads:?}");
    assert!(
        threads[0]["name"]
            .as_str()
            .unwrap()
            .starts_with("Ladder · brian vs aoife"),
        "{threads:?}"
    );
    let thread: u64 = threads[0]["id"].as_str().unwrap().parse().unwrap();
    let start = channel_post_containing(&fake, thread, "Game on!")
        .await
        .expect("the game's start in its thread");
    assert_eq!(allowed_users(&start).len(), 2);
    assert!(
        r.content().unwrap().contains("challenges") && r.content().unwrap().contains("starts now"),
        "{:?}",
        r.content()
    );
    // The private view, with its picture.
    let show = ladder(&fake, &Invoker::new(BOB.0, BOB.1), "show", json!([])).await;
    assert!(show.ephemeral());
    assert!(show
        .content()
        .unwrap()
        .contains("Your ladder games in progress"));
    // Alice resigns over the board: Bob takes rank 1, said in the thread and the channel.
    opening_in(&fake, thread, [BOB, ALICE]).await;
    let res = fake.slash(ALICE, thread, "resign", json!([])).await;
    let ask = fake.response(res, T).await.unwrap();
    let button = ask.custom_ids()[0].clone();
    let click = fake
        .button(ALICE, thread, fake.message_from(&ask), &button)
        .await;
    fake.response(click, T).await.unwrap();
    let moved = channel_post_containing(&fake, CH, "climbs from rank 2 to rank 1")
        .await
        .expect("the ladder's change in its channel");
    assert!(allowed_users(&moved).is_empty());
    assert_eq!(fake.threads().len(), 1);
    drop(bot);
    drop(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_league_season_through_discord_opens_a_thread_per_game_and_ends_with_its_standings() {
    let (dir, fake, bot) = boot().await;
    const CARA: (u64, &str) = (1_000_000_000_000_000_003, "ciara");
    let moderator = Invoker::new(7, "mona").moderator();
    let league = |who: Invoker, name: &'static str, options: Value| {
        let fake = &fake;
        async move {
            subcommand(fake, who, CH, ("league", name), options)
                .await
                .unwrap()
                .1
        }
    };
    let r = league(
        moderator.clone(),
        "create",
        json!([
            {"name": "name", "type": 3, "value": "Samhain"},
            {"name": "variant", "type": 3, "value": "ard-ri"},
            {"name": "division-size", "type": 4, "value": 3},
            {"name": "match", "type": 5, "value": false},
        ]),
    )
    .await;
    assert!(
        r.content().unwrap().contains("League #1: Samhain"),
        "{:?}",
        r.content()
    );
    for p in [ALICE, BOB, CARA] {
        fake.add_user(p.0, p.1);
        let r = league(Invoker::new(p.0, p.1), "join", json!([])).await;
        assert!(!r.ephemeral(), "{:?}", r.content());
    }
    let r = league(moderator.clone(), "start", json!([])).await;
    assert!(
        r.content().unwrap().contains("season 1"),
        "{:?}",
        r.content()
    );
    // One division of three: three games, each in its own thread; one message pings each
    // player once with links to their games.
    channel_post_containing(&fake, CH, "Your games:")
        .await
        .expect("the division's start");
    let threads = fake.threads();
    assert_eq!(threads.len(), 3, "{threads:?}");
    let standings = league(Invoker::new(BOB.0, BOB.1), "standings", json!([])).await;
    assert!(
        standings.content().unwrap().contains("division 1"),
        "{:?}",
        standings.content()
    );
    for th in fake.threads() {
        resign_in_thread(&fake, &th, &[ALICE, BOB, CARA]).await;
    }
    // The last game ends the season: the champion is named in the league's channel.
    let end = channel_post_containing(&fake, CH, "season 1 is over")
        .await
        .unwrap_or_else(|| panic!("the season's end; {}", bot_log(dir.path())));
    assert!(end.content().unwrap().contains("Champion"));
    let history = league(Invoker::new(CARA.0, CARA.1), "history", json!([])).await;
    assert!(history.ephemeral());
    assert!(history.content().unwrap().contains("Season 1:"));
    drop(bot);
}

/// Sends one request straight to the fake (as a bot would): status, headers and JSON body.
async fn raw(
    fake: &FakeDiscord,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let client = reqwest::Client::new();
    let mut req = client
        .request(method, format!("{}/api/v10{path}", fake.proxy_url()))
        .header("authorization", "Bot fake-token");
    if let Some(b) = body {
        req = req
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    let answer = req.send().await.unwrap();
    let status = answer.status().as_u16();
    let headers = answer.headers().clone();
    let text = answer.text().await.unwrap();
    (
        status,
        headers,
        serde_json::from_str(&text).unwrap_or(Value::Null),
    )
}

fn header<'a>(h: &'a reqwest::header::HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fake_enforces_discords_limits() {
    use fake_discord::Limits;
    use reqwest::Method;
    let fake = FakeDiscord::start().await;
    let guild = FakeDiscord::GUILD_ID;
    // Per-route buckets, with Discord's headers: five posts in a channel, then a 429 for the
    // rest of the bucket's window; another channel has a bucket of its own.
    let post = format!("/channels/{CH}/messages");
    for left in (0..5).rev() {
        let (status, h, _) = raw(&fake, Method::POST, &post, Some(json!({"content": "x"}))).await;
        assert_eq!(status, 200);
        assert_eq!(header(&h, "x-ratelimit-limit"), Some("5"));
        assert_eq!(
            header(&h, "x-ratelimit-remaining"),
            Some(left.to_string().as_str())
        );
        let reset: f64 = header(&h, "x-ratelimit-reset-after")
            .unwrap()
            .parse()
            .unwrap();
        assert!(reset > 0.0 && reset <= 5.0, "{reset}");
        assert!(header(&h, "x-ratelimit-bucket").is_some());
        assert!(header(&h, "x-ratelimit-reset").is_some());
    }
    let (status, h, body) = raw(&fake, Method::POST, &post, Some(json!({"content": "x"}))).await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["global"], json!(false));
    assert!(body["retry_after"].as_f64().unwrap() > 0.0);
    assert_eq!(header(&h, "x-ratelimit-scope"), Some("user"));
    assert_eq!(header(&h, "x-ratelimit-remaining"), Some("0"));
    let other = format!("/channels/{}/messages", FakeDiscord::OTHER_CHANNEL_ID);
    assert_eq!(
        raw(&fake, Method::POST, &other, Some(json!({"content": "y"})))
            .await
            .0,
        200
    );
    assert_eq!(fake.invalid_requests(), 1);

    // The global limit: 50 requests in a second, then a global 429.
    let fake = FakeDiscord::start().await;
    let mut limits = Limits::none();
    limits.global_per_second = 50;
    fake.set_limits(limits);
    let mut refused = None;
    for i in 0..60 {
        let (status, h, body) = raw(&fake, Method::GET, "/users/@me", None).await;
        if status == 429 {
            refused = Some((i, h, body));
            break;
        }
    }
    let (i, h, body) = refused.expect("a global 429 within 60 requests");
    assert!(i >= 50, "refused after {i}");
    assert_eq!(body["global"], json!(true));
    assert_eq!(header(&h, "x-ratelimit-global"), Some("true"));
    assert_eq!(header(&h, "x-ratelimit-scope"), Some("global"));
    assert!(body["retry_after"].as_f64().unwrap() <= 1.0);
    assert_eq!(fake.invalid_requests(), 1);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(raw(&fake, Method::GET, "/users/@me", None).await.0, 200);

    // Active threads: three at most here; archiving frees a place, a post in an archived
    // thread unarchives it (when there is room), and so does the fake's clock moving past a
    // thread's auto-archive time.
    let fake = FakeDiscord::start().await;
    let mut limits = Limits::none();
    limits.active_threads = 3;
    limits.thread_creation = vec![(1, Duration::from_millis(1500))];
    fake.set_limits(limits);
    let busy = fake.add_threads(FakeDiscord::OTHER_CHANNEL_ID, 2);
    assert_eq!(fake.active_threads(guild), 2);
    let make = |name: &str| json!({"name": name, "type": 11, "auto_archive_duration": 60});
    let threads = format!("/channels/{CH}/threads");
    let (status, _, mine) = raw(&fake, Method::POST, &threads, Some(make("game 1"))).await;
    assert_eq!(status, 200);
    let mine: u64 = mine["id"].as_str().unwrap().parse().unwrap();
    let (status, _, body) = raw(&fake, Method::POST, &threads, Some(make("game 2"))).await;
    assert_eq!(
        (status, body["code"].as_u64()),
        (400, Some(160006)),
        "{body}"
    );
    // The active list is what GUILD_CREATE and GET /guilds/{id}/threads/active show.
    let (_, _, active) = raw(
        &fake,
        Method::GET,
        &format!("/guilds/{guild}/threads/active"),
        None,
    )
    .await;
    assert_eq!(active["threads"].as_array().unwrap().len(), 3);
    let (status, _, _) = raw(
        &fake,
        Method::PATCH,
        &format!("/channels/{}", busy[0]),
        Some(json!({"archived": true})),
    )
    .await;
    assert_eq!(status, 200);
    assert!(fake.is_archived(busy[0]));
    assert_eq!(fake.active_threads(guild), 2);
    // Thread creation per guild: one in 1.5 s here, then a shared 429 (not an invalid request).
    let (status, h, _) = raw(&fake, Method::POST, &threads, Some(make("game 2"))).await;
    assert_eq!(status, 429);
    assert_eq!(header(&h, "x-ratelimit-scope"), Some("shared"));
    assert_eq!(fake.invalid_requests(), 0);
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let (status, _, _) = raw(&fake, Method::POST, &threads, Some(make("game 2"))).await;
    assert_eq!(status, 200);
    // Full again: a post in the archived thread is refused, 160006.
    let (status, _, body) = raw(
        &fake,
        Method::POST,
        &format!("/channels/{}/messages", busy[0]),
        Some(json!({"content": "hello"})),
    )
    .await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(160006)));
    assert!(fake.is_archived(busy[0]));
    // An hour of quiet archives the bot's threads (their auto-archive is 60 minutes), not the
    // other one (a week)…
    fake.advance_clock(Duration::from_secs(3601));
    assert!(fake.is_archived(mine));
    assert!(!fake.is_archived(busy[1]));
    assert_eq!(fake.active_threads(guild), 1);
    // … an edit in it is refused (50083), and a post unarchives it.
    let (status, _, body) = raw(
        &fake,
        Method::PATCH,
        &format!("/channels/{mine}/messages/1"),
        Some(json!({"content": "edited"})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_u64()),
        (400, Some(50083)),
        "{body}"
    );
    let (status, _, _) = raw(
        &fake,
        Method::POST,
        &format!("/channels/{mine}/messages"),
        Some(json!({"content": "hello again"})),
    )
    .await;
    assert_eq!(status, 200);
    assert!(!fake.is_archived(mine));
    assert_eq!(fake.active_threads(guild), 2);
    assert_eq!(fake.peak_active_threads(guild), 3);
    let codes: Vec<u64> = fake.refusals().iter().map(|r| r.code).collect();
    assert_eq!(
        codes.iter().filter(|c| **c == 160006).count(),
        2,
        "{codes:?}"
    );
    assert_eq!(
        codes.iter().filter(|c| **c == 50083).count(),
        1,
        "{codes:?}"
    );
}

/// A game in the second guild's channel between Alice and Bob (Alice first), started through
/// a challenge and its Accept button.
async fn start_game_in_second_guild(fake: &FakeDiscord, variant: &str) {
    let ch = FakeDiscord::SECOND_CHANNEL_ID;
    let opponent = fake.user_option("opponent", BOB);
    let id = fake
        .slash(
            ALICE,
            ch,
            "challenge",
            json!([
                opponent,
                {"name": "variant", "type": 3, "value": variant},
                {"name": "first", "type": 3, "value": "me"},
                {"name": "thread", "type": 5, "value": false}
            ]),
        )
        .await;
    let r = fake.response(id, T).await.expect("challenge answered");
    let accept = r.custom_ids()[0].clone();
    let click = fake.button(BOB, ch, fake.message_from(&r), &accept).await;
    fake.response(click, T).await.expect("accepted");
    fake.wait_followups(click, 1, T).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_twenty_player_round_robin_starts_within_discords_limits() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start_two_guilds(1).await;
    let _bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    fake.registered_commands(T).await.unwrap();
    // A game in progress on another server.
    start_game_in_second_guild(&fake, "ard-ri").await;
    let options = GameOptions::new(Variant::ArdRi);
    let moves = player_moves(options, 7);
    // A 20-player all-at-once round robin here: 190 games, more than 50 threads at once, so a
    // thread a round (19), each player's one game of the round in it.
    let moderator = Invoker::new(7, "mona").moderator();
    let players: Vec<(u64, String)> = (0..20u64)
        .map(|i| (2_000_000_000_000_000_000 + i, format!("player{i}")))
        .collect();
    let named: Vec<(u64, &str)> = players.iter().map(|(id, n)| (*id, n.as_str())).collect();
    ard_ri_round_robin(&fake, &moderator, "Lughnasa", &named).await;
    let before = fake.requests().len();
    let start = fake
        .slash(moderator.clone(), CH, "tournament", sub("start", json!([])))
        .await;
    let answer = fake.response(start, T).await.expect("the start answered");
    let waited = answer.at.duration_since(fake.injected_at(start).unwrap());
    assert!(
        waited < Duration::from_secs(3),
        "the start answered after {waited:?}"
    );
    // While the bot opens the event's threads, moves on the other server are answered within
    // Discord's 3 seconds.
    let burst = std::time::Instant::now();
    let mut slowest = Duration::ZERO;
    let mut pos = Position::new(options);
    for m in moves.iter().take(12) {
        let who = if pos.to_move().unwrap().index() == 0 {
            ALICE
        } else {
            BOB
        };
        let id = send_move(&fake, who, FakeDiscord::SECOND_CHANNEL_ID, &m.to_string()).await;
        let r = fake.response(id, T).await.expect("the move answered");
        assert!(!r.ephemeral(), "{m}: {:?}", r.content());
        slowest = slowest.max(r.at.duration_since(fake.injected_at(id).unwrap()));
        pos.play(*m).unwrap();
        while pos.outcome().is_none() && pos.legal_moves().as_slice() == [Move::Pass] {
            pos.play(Move::Pass).unwrap();
        }
    }
    assert!(
        slowest < Duration::from_secs(3),
        "a move answered after {slowest:?}"
    );
    // Every player is told where their games are, in one message, within a minute: the
    // threads go out at the bot's pace first, then the message that links them (in parts of
    // at most 2,000 characters; each player's line in one).
    let everyone = everyone_told(
        &fake,
        dir.path(),
        &players,
        Duration::from_secs(60),
        |_| true,
        0,
    )
    .await;
    let told_after = burst.elapsed();
    assert!(
        everyone[0].contains("one thread a round"),
        "{}",
        everyone[0]
    );
    for (id, _) in &players {
        let messages = everyone
            .iter()
            .filter(|m| m.contains(&format!("<@{id}>")))
            .count();
        assert_eq!(messages, 1, "{everyone:?}");
    }
    let busiest = fake.busiest_second();
    assert!(busiest <= 50, "{busiest} requests in one second");
    let created: Vec<std::time::Instant> = fake.requests()[before..]
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/threads") && r.status == 200)
        .map(|r| r.at)
        .collect();
    assert_eq!(created.len(), 19, "a thread a round");
    // Each thread's one first message lists its round's ten games.
    let id = |v: &Value| v.as_str().and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
    for t in fake.threads().iter().filter(|t| id(&t["parent_id"]) == CH) {
        let msgs = fake.channel_messages(id(&t["id"]));
        assert!(!msgs.is_empty(), "{t}");
        let first = msgs[0]["content"].as_str().unwrap_or_default();
        assert_eq!(first.matches("\n• game ").count(), 10, "{first}");
    }
    let most_in_a_second = (0..created.len())
        .map(|i| {
            created[i..]
                .iter()
                .take_while(|t| t.duration_since(created[i]) < Duration::from_secs(1))
                .count()
        })
        .max()
        .unwrap_or(0);
    // Five a second, give or take a late wake-up.
    assert!(
        most_in_a_second <= 6,
        "{most_in_a_second} threads in one second"
    );
    // No global 429 and nothing else Discord would count against the bot (the shared 429s of
    // the server's thread-creation limit do not count).
    assert_eq!(fake.invalid_requests(), 0, "{:?}", fake.refusals());
    assert!(fake.peak_active_threads(FakeDiscord::GUILD_ID) <= 19 + 1);
    let requests = fake.requests().len() - before;
    println!(
        "20-player start: answered in {waited:?}, slowest move elsewhere {slowest:?}, everyone \
         told after {told_after:?}, busiest second {busiest} requests, {} threads, {requests} \
         requests in all",
        created.len()
    );
    // Then the event is played to its end through Discord: all 190 games, a move each and a
    // resignation, each command naming its game in its round's thread.
    let db = dir.path().join("tara.db");
    let lughnasa = TournamentId(1);
    {
        let mut s = tara_bot::store::Store::open(&db).unwrap();
        let row = s.read(|tx| tx.tournament(lughnasa)).unwrap().unwrap();
        assert_eq!(row.name, "Lughnasa");
    }
    let rounds: Vec<u64> = fake
        .threads()
        .iter()
        .filter(|t| id(&t["parent_id"]) == CH)
        .map(|t| id(&t["id"]))
        .collect();
    assert_eq!(rounds.len(), 19);
    let (played, requests, took) =
        round_robin_played_out(&fake, dir.path(), lughnasa, "Lughnasa", &players, &rounds).await;
    assert_eq!(played.games, 190);
    println!(
        "20-player round robin played out: {} games, {} moves, {requests} requests, in {took:?}",
        played.games, played.moves
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_at_discords_thread_limit_is_said_once_and_the_game_waits_for_a_place() {
    // Discord holds the server at 12 active threads here (160006 past them).
    threads_full(Some(12), None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_opens_no_thread_past_its_margin_and_the_game_waits_for_a_place() {
    // The bot stops at 12 itself: Discord never refuses a thread.
    threads_full(None, Some("12")).await;
}

/// A 3-player round robin on a server with ten active threads and room for two more (by
/// Discord's limit `limit`, or the bot's `margin`): two threads open, the third waits, said
/// once, and opens when a moderator archives a thread.
async fn threads_full(limit: Option<usize>, margin: Option<&str>) {
    use fake_discord::Limits;
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    if let Some(n) = limit {
        fake.set_limits(Limits {
            active_threads: n,
            ..Limits::default()
        });
    }
    let busy = fake.add_threads(FakeDiscord::OTHER_CHANNEL_ID, 10);
    // A short lease: owed messages are looked at every second.
    let mut env = vec![("TARA_BOT_LEASE_MS", "4000")];
    if let Some(m) = margin {
        env.push(("TARA_BOT_THREAD_MARGIN", m));
    }
    let _bot = spawn_bot_env(&fake, dir.path(), &env);
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    const CARA: (u64, &str) = (1_000_000_000_000_000_003, "ciara");
    let moderator = Invoker::new(7, "mona").moderator();
    ard_ri_round_robin(&fake, &moderator, "Imbolc", &[ALICE, BOB, CARA]).await;
    let start = fake
        .slash(moderator.clone(), CH, "tournament", sub("start", json!([])))
        .await;
    fake.response(start, T).await.expect("the start answered");
    if margin.is_some() {
        // Within its margin the bot knows the numbers at once, and tells the organiser
        // privately.
        let told = fake.wait_followups(start, 1, T).await;
        let note = told
            .iter()
            .find(|f| f.content().unwrap_or_default().contains("needs 3 threads"))
            .unwrap_or_else(|| panic!("{told:?}"));
        assert!(note.ephemeral());
        assert!(
            note.content().unwrap().contains("room for 2 more"),
            "{:?}",
            note.content()
        );
    }
    // Two threads open; the third cannot (Discord's 160006, or the margin), which is said once
    // in the tournament's channel.
    let notice = channel_post_containing(&fake, CH, "1,000 active threads")
        .await
        .unwrap_or_else(|| panic!("no notice: {}", bot_log(dir.path())));
    assert!(allowed_users(&notice).is_empty(), "the notice pings nobody");
    assert_eq!(fake.threads().len(), 12);
    assert_eq!(fake.active_threads(FakeDiscord::GUILD_ID), 12);
    // The round's message waits: it would link a thread that does not exist.
    assert!(posts_to(&fake, CH)
        .iter()
        .all(|p| !p.content().unwrap_or_default().contains("Your games:")));
    // A moderator archives a thread: the third game's thread opens, its game is announced,
    // and the round's message links all three.
    let (status, _, _) = raw(
        &fake,
        reqwest::Method::PATCH,
        &format!("/channels/{}", busy[0]),
        Some(json!({"archived": true})),
    )
    .await;
    assert_eq!(status, 200);
    let round = fake
        .wait_request(
            |r| {
                r.method == "POST"
                    && r.path == format!("/api/v10/channels/{CH}/messages")
                    && r.content().is_some_and(|c| c.contains("Your games:"))
            },
            Duration::from_secs(60),
        )
        .await
        .unwrap_or_else(|| panic!("no round message: {}", bot_log(dir.path())));
    let games: Vec<Value> = fake
        .threads()
        .into_iter()
        .filter(|t| t["owner_id"] == json!(FakeDiscord::BOT_USER_ID.to_string()))
        .collect();
    assert_eq!(games.len(), 3);
    for t in &games {
        let id = t["id"].as_str().unwrap();
        assert!(round.content().unwrap().contains(&format!("<#{id}>")));
        let posted = fake.channel_messages(id.parse().unwrap());
        assert_eq!(posted.len(), 1, "thread {id}: {posted:?}");
    }
    assert!(fake.peak_active_threads(FakeDiscord::GUILD_ID) <= 12);
    let notices = posts_to(&fake, CH)
        .iter()
        .filter(|p| {
            p.content()
                .unwrap_or_default()
                .contains("1,000 active threads")
        })
        .count();
    assert_eq!(notices, 1);
    // The notice was owed like every other message: stored, then marked sent once.
    let db = rusqlite::Connection::open(dir.path().join("tara.db")).unwrap();
    let owed: Vec<Option<i64>> = db
        .prepare("SELECT sent_at FROM outbox WHERE body LIKE '%1,000 active threads%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(matches!(owed.as_slice(), [Some(_)]), "{owed:?}");
    // 160006 is no invalid request; nothing else was refused. Within its margin the bot
    // never meets it.
    assert_eq!(fake.invalid_requests(), 0, "{:?}", fake.refusals());
    let full = fake.refusals().iter().filter(|r| r.code == 160006).count();
    if margin.is_some() {
        assert_eq!(full, 0, "{:?}", fake.refusals());
    } else {
        assert!(full >= 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_in_an_archived_thread_unarchives_it_first() {
    let dir = tempfile::tempdir().unwrap();
    let game = seed_finished(&dir.path().join("tara.db"), Variant::Hkot1, 3);
    let fake = FakeDiscord::start().await;
    let _bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    // A thread someone opened to discuss the game; the analysis is asked for there.
    let (_, _, thread) = raw(
        &fake,
        reqwest::Method::POST,
        &format!("/channels/{CH}/threads"),
        Some(json!({"name": "post-mortem", "type": 11, "auto_archive_duration": 60})),
    )
    .await;
    let thread: u64 = thread["id"].as_str().unwrap().parse().unwrap();
    let id = fake
        .slash(
            BOB,
            thread,
            "analyse",
            json!([{"name": "id", "type": 4, "value": game}, {"name": "level", "type": 4, "value": 4}]),
        )
        .await;
    fake.response(id, T).await.expect("the progress message");
    // The thread is archived while the analysis runs (a moderator, or its quiet time).
    let (status, _, _) = raw(
        &fake,
        reqwest::Method::PATCH,
        &format!("/channels/{thread}"),
        Some(json!({"archived": true})),
    )
    .await;
    assert_eq!(status, 200);
    let progress = fake.original(id).expect("the progress message");
    let mid = progress["id"].as_str().unwrap().to_string();
    let edit_path = format!("/api/v10/channels/{thread}/messages/{mid}");
    let last = fake
        .wait_request(
            |q| {
                q.method == "PATCH"
                    && q.path == edit_path
                    && q.status < 300
                    && q.content().is_some_and(|c| c.starts_with("Analysed game"))
            },
            Duration::from_secs(90),
        )
        .await
        .unwrap_or_else(|| panic!("no last edit: {}", bot_log(dir.path())));
    assert!(last.status < 300);
    // The edit met 50083 once, the bot unarchived the thread and edited again.
    let refused = fake.refusals().iter().filter(|r| r.code == 50083).count();
    assert_eq!(refused, 1, "{:?}", fake.refusals());
    let unarchived = fake.requests().iter().any(|r| {
        r.method == "PATCH"
            && r.path == format!("/api/v10/channels/{thread}")
            && r.json
                .as_ref()
                .is_some_and(|j| j["archived"] == json!(false))
            && r.status == 200
    });
    assert!(unarchived);
    assert_eq!(
        fake.message(mid.parse().unwrap()).unwrap()["content"]
            .as_str()
            .unwrap(),
        last.content().unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_games_thread_deleted_by_a_moderator_is_opened_again_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    // A short lease: owed messages are looked at every second.
    let _bot = spawn_bot_env(&fake, dir.path(), &[("TARA_BOT_LEASE_MS", "4000")]);
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    const CARA: (u64, &str) = (1_000_000_000_000_000_003, "ciara");
    let moderator = Invoker::new(7, "mona").moderator();
    ard_ri_round_robin(&fake, &moderator, "Bealtaine", &[ALICE, BOB, CARA]).await;
    tournament(&fake, &moderator, "start", json!([])).await;
    channel_post_containing(&fake, CH, "Your games:")
        .await
        .expect("the start's message");
    let threads = fake.threads();
    assert_eq!(threads.len(), 3);
    // A moderator deletes the thread of one of Ciara's games.
    let gone = threads
        .iter()
        .find(|t| t["name"].as_str().unwrap().contains(CARA.1))
        .unwrap();
    let gone_id: u64 = gone["id"].as_str().unwrap().parse().unwrap();
    let gone_name = gone["name"].as_str().unwrap().to_string();
    let (status, _, _) = raw(
        &fake,
        reqwest::Method::DELETE,
        &format!("/channels/{gone_id}"),
        None,
    )
    .await;
    assert_eq!(status, 200);
    // Ciara is withdrawn: her games end, and their ends are announced in their threads. The
    // deleted one meets 10003: a new thread opens under the same name, saying why, and the
    // announcement follows it there.
    let player = fake.user_option("player", CARA);
    tournament(&fake, &moderator, "withdraw", json!([player])).await;
    let reopened = fake
        .wait_for(Duration::from_secs(60), |f| {
            f.threads().into_iter().find(|t| {
                t["name"].as_str() == Some(gone_name.as_str())
                    && t["id"].as_str() != Some(gone_id.to_string().as_str())
                    && f.channel_messages(t["id"].as_str().unwrap().parse().unwrap())
                        .len()
                        >= 2
            })
        })
        .await
        .unwrap_or_else(|| {
            panic!(
                "no new thread: {:#?}\n{}",
                fake.threads(),
                bot_log(dir.path())
            )
        });
    let id: u64 = reopened["id"].as_str().unwrap().parse().unwrap();
    let posted = fake.channel_messages(id);
    assert!(
        posted[0]["content"]
            .as_str()
            .unwrap()
            .contains("was deleted"),
        "{posted:#?}"
    );
    assert!(
        posted[1..]
            .iter()
            .any(|m| m["content"].as_str().unwrap().contains("is withdrawn")),
        "{posted:#?}"
    );
    assert_eq!(fake.invalid_requests(), 0, "{:?}", fake.refusals());
}

/// Waits up to `within` until every one of `players` is pinged in the messages of the event's
/// channel from its first "Your games:" on (a long one goes in parts) that `keep` keeps, and
/// checks that each is pinged exactly once and that no link names a thread key instead of a
/// thread; the channel's first `after` messages left out. Those messages, in order.
async fn everyone_told(
    fake: &FakeDiscord,
    dir: &Path,
    players: &[(u64, String)],
    within: Duration,
    keep: fn(&str) -> bool,
    after: usize,
) -> Vec<String> {
    let everyone = fake
        .wait_for(within, |f| told_where(f, CH, players, after, keep))
        .await;
    let Some(everyone) = everyone else {
        let msgs: Vec<String> = fake
            .channel_messages(CH)
            .iter()
            .map(|m| {
                m["content"]
                    .as_str()
                    .unwrap_or_default()
                    .chars()
                    .take(200)
                    .collect()
            })
            .collect();
        panic!(
            "not everyone told where their games are: {:?} threads; {msgs:#?}; {}",
            fake.threads()
                .iter()
                .map(|t| t["name"].to_string())
                .collect::<Vec<_>>(),
            bot_log(dir)
        );
    };
    let content = everyone.join("\n");
    assert!(!content.contains("<#t"), "a link to no channel: {content}");
    for (id, _) in players {
        assert_eq!(content.matches(&format!("<@{id}>")).count(), 1, "{content}");
    }
    everyone
}

/// Creates an Ard Rí round robin (all at once) named `name` in the channel as `moderator`, with
/// `players` signed up in order.
async fn ard_ri_round_robin(
    fake: &FakeDiscord,
    moderator: &Invoker,
    name: &str,
    players: &[(u64, &str)],
) {
    tournament(
        fake,
        moderator,
        "create",
        json!([
            {"name": "name", "type": 3, "value": name},
            {"name": "variant", "type": 3, "value": "ard-ri"},
            {"name": "system", "type": 3, "value": "round-robin"},
        ]),
    )
    .await;
    join_all(fake, players).await;
}

/// The threads the fake holds, in the order of the tournament games they were opened for
/// (round, then board; the bot opens several side by side, so their creation order may
/// differ), any other after them.
fn threads_by_board(fake: &FakeDiscord, db: &Path) -> Vec<Value> {
    let mut s = tara_bot::store::Store::open(db).unwrap();
    let pairings = s.read(|tx| tx.pairings(TournamentId(1), None)).unwrap();
    let mut threads = fake.threads();
    threads.sort_by_key(|t| {
        let id = t["id"].as_str().unwrap_or_default();
        pairings
            .iter()
            .find(|p| p.thread_id.as_ref().map(ChannelId::as_str) == Some(id))
            .map_or((u32::MAX, u32::MAX), |p| (p.round, p.board))
    });
    threads
}

/// What every event through the fake Discord keeps to: no 160006 (the server's threads
/// full), the server never past the bot's margin of 950 threads, at most 50 requests in any
/// second, and no invalid request.
fn within_discords_limits(fake: &FakeDiscord) {
    assert!(
        !fake.refusals().iter().any(|r| r.code == 160006),
        "{:?}",
        fake.refusals()
    );
    assert!(fake.peak_active_threads(FakeDiscord::GUILD_ID) <= 950);
    assert!(fake.busiest_second() <= 50, "{}", fake.busiest_second());
    assert_eq!(fake.invalid_requests(), 0, "{:?}", fake.refusals());
}

/// Plays round robin `t` (named `name`, its round threads `rounds`) to its end through
/// Discord ([`play_out`]), then checks that its end is announced in its channel, that every
/// round's thread is archived once its last game has ended, and that Discord's limits held.
/// What was played, the requests it took, and how long.
async fn round_robin_played_out(
    fake: &FakeDiscord,
    dir: &Path,
    t: TournamentId,
    name: &str,
    players: &[(u64, String)],
    rounds: &[u64],
) -> (Played, usize, Duration) {
    let db = dir.join("tara.db");
    let from = fake.requests().len();
    let at = std::time::Instant::now();
    let played = play_out(fake, &db, t, players)
        .await
        .unwrap_or_else(|e| panic!("{e:#}: {}", bot_log(dir)));
    let took = at.elapsed();
    assert_eq!(played.refused, 0);
    let over = channel_post_containing(fake, CH, "is over")
        .await
        .unwrap_or_else(|| panic!("no end: {}", bot_log(dir)));
    assert!(over.content().unwrap().contains(name));
    let archived = fake
        .wait_for(Duration::from_secs(60), |f| {
            rounds.iter().all(|r| f.is_archived(*r)).then_some(())
        })
        .await;
    assert!(archived.is_some(), "every round's thread archived");
    within_discords_limits(fake);
    (played, fake.requests().len() - from, took)
}

/// Issue 44's league through the fake Discord with every limit on: 200 players (20 divisions
/// of 10, two-game matches) on a server that already has 600 active threads. The start is
/// answered within Discord's 3 seconds, every player is told where their games are within a
/// minute (one thread a division), no request is refused and the server never holds more
/// threads than the bot's margin; then division 1 is played to its end through Discord (a move
/// each, then a resignation, in every game, each command naming its game) and its thread is
/// archived after its last game; the organiser withdraws a player through Discord, and in the
/// other divisions every game whose number is a multiple of 7 gets a move each and is lost on
/// time by the bot's own clock check; then the other 19 divisions are played to their end side
/// by side, season 1 ends with every game played, and the bot's clock check starts season 2,
/// whose players are all told where their games are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_player_league_on_a_busy_server_tells_everyone_within_a_minute() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    fake.add_threads(FakeDiscord::OTHER_CHANNEL_ID, 600);
    let _bot = spawn_bot_env(&fake, dir.path(), &[("TARA_BOT_LEASE_MS", "4000")]);
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    let moderator = Invoker::new(7, "mona").moderator();
    let league = |who: Invoker, name: &'static str, options: Value| {
        let fake = &fake;
        async move {
            subcommand(fake, who, CH, ("league", name), options)
                .await
                .unwrap()
        }
    };
    league(
        moderator.clone(),
        "create",
        json!([
            {"name": "name", "type": 3, "value": "Mór"},
            {"name": "variant", "type": 3, "value": "hkot-2"},
            {"name": "days", "type": 3, "value": "1"},
            {"name": "gap-days", "type": 4, "value": 0},
        ]),
    )
    .await;
    let players: Vec<(u64, String)> = (0..200u64)
        .map(|i| (3_000_000_000_000_000_000 + i, format!("p{i:03}")))
        .collect();
    for (id, name) in &players {
        fake.add_user(*id, name);
        let (_, r) = league(Invoker::new(*id, name), "join", json!([])).await;
        assert!(!r.ephemeral(), "{:?}", r.content());
    }
    let before = fake.requests().len();
    let (start, answer) = league(moderator.clone(), "start", json!([])).await;
    let waited = answer.at.duration_since(fake.injected_at(start).unwrap());
    assert!(waited < Duration::from_secs(3), "answered after {waited:?}");
    let started = std::time::Instant::now();
    // Every player's line, in their division's message (not the season's list of divisions,
    // which names everyone without pinging).
    everyone_told(
        &fake,
        dir.path(),
        &players,
        Duration::from_secs(60),
        told,
        0,
    )
    .await;
    let told_after = started.elapsed() + waited;
    let created = threads_in(&fake, CH);
    assert_eq!(created.len(), 20, "a thread a division");
    assert!(created
        .iter()
        .all(|t| t["name"].as_str().unwrap_or_default().contains("division")));
    let start_requests = fake.requests().len() - before;
    // Then every game's own start message in its division's thread (900, at most five in
    // five seconds a thread, the threads side by side), before anyone plays: players come
    // over hours, not in the same second (a game played to its end before its start message
    // is out would have it posted after the end).
    all_delivered(&fake, dir.path()).await;
    let all_out_after = started.elapsed() + waited;
    // Division 1 played to its end through Discord: both players move once, then the lower
    // number resigns, in every game; each command names its game.
    let db = dir.path().join("tara.db");
    let division = {
        let mut s = tara_bot::store::Store::open(&db).unwrap();
        s.read(|tx| tx.league_divisions(tara_bot::store::LeagueId(1), Some(1)))
            .unwrap()[0]
            .tournament_id
    };
    let play_from = fake.requests().len();
    let Played {
        games,
        moves,
        refused,
        thread,
    } = play_out(&fake, &db, division, &players)
        .await
        .unwrap_or_else(|e| panic!("{e:#}: {}", bot_log(dir.path())));
    assert_eq!(games, 90, "45 two-game matches");
    let archived = fake
        .wait_for(Duration::from_secs(30), |f| {
            f.is_archived(thread).then_some(())
        })
        .await;
    assert!(
        archived.is_some(),
        "division 1's thread archived after its last game"
    );
    // Every request, interaction answers and pictures included, but the three of each
    // resignation (its question, the button's answer, the result) and the one answer to each
    // move tried by the player not on move; what the end of a game posts counts as its moves'.
    let play_requests = fake.requests().len() - play_from;
    let per_move = (play_requests - 3 * games - refused) as f64 / moves as f64;
    assert!(
        per_move <= 3.0,
        "{play_requests} requests for {moves} moves, {games} resignations, {refused} refusals"
    );
    within_discords_limits(&fake);
    println!(
        "200-player league: answered in {waited:?}, everyone told after {told_after:?} \
         ({start_requests} requests), 20 threads, every game's start message out after \
         {all_out_after:?}; division 1: {games} games, {moves} moves, \
         {play_requests} REST requests in all ({per_move:.2} a move)"
    );
    // The rest of season 1 through Discord. The organiser withdraws a player of the last
    // division (their games become forfeits); in every other division a game whose number is
    // a multiple of 7 is lost on time after a move each (its clock run out in the database, as
    // a day passing would; the bot's own clock check ends it), and every other game is
    // resigned after a move each.
    let rest_from = fake.requests().len();
    let rest_at = std::time::Instant::now();
    let divisions: Vec<TournamentId> = {
        let mut s = tara_bot::store::Store::open(&db).unwrap();
        s.read(|tx| tx.league_divisions(tara_bot::store::LeagueId(1), Some(1)))
            .unwrap()
            .into_iter()
            .map(|d| d.tournament_id)
            .collect()
    };
    assert_eq!(divisions.len(), 20);
    let last = divisions[19];
    let leaving: u64 = {
        let mut s = tara_bot::store::Store::open(&db).unwrap();
        s.read(|tx| tx.entrants(last))
            .unwrap()
            .last()
            .unwrap()
            .user_id
            .to_string()
            .parse()
            .unwrap()
    };
    let withdraw = fake
        .slash(
            moderator.clone(),
            CH,
            "tournament",
            sub(
                "withdraw",
                json!([
                    {"name": "player", "type": 6, "value": leaving.to_string()},
                    {"name": "id", "type": 4, "value": last.0},
                ]),
            ),
        )
        .await;
    let r = fake.response(withdraw, T).await.expect("answered");
    assert!(
        r.content().is_some_and(|c| c.contains("withdrawn")),
        "{:?}",
        r.content()
    );
    // First the games lost on time: in every other division, each game whose number is a
    // multiple of 7 gets a move from each player, then a day and more passes for it (its clock
    // run out in the database): the bot's own clock check ends it.
    let mut store = tara_bot::store::Store::open(&db).unwrap();
    let late: Vec<(u64, GameId, [u64; 2])> = divisions[1..]
        .iter()
        .flat_map(|t| active_games(&mut store, *t).unwrap())
        .filter(|(_, g, _)| g.0 % 7 == 0)
        .collect();
    let mut moved = Played::default();
    for (channel, game, _) in &late {
        play_moves(
            &fake,
            &mut store,
            (*channel, *game),
            &players,
            2,
            &mut moved,
        )
        .await
        .unwrap();
    }
    assert_eq!(moved.refused, 0);
    {
        use tara_bot::bot::time::DAY;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        store
            .write(|tx| -> Result<(), tara_bot::store::StoreError> {
                for (_, game, _) in &late {
                    tx.start_turn(*game, now - 2 * DAY, Some((now - 2 * DAY, now - DAY)))?;
                }
                Ok(())
            })
            .unwrap();
    }
    let ended = fake
        .wait_for(Duration::from_secs(120), |_| {
            let still: Vec<GameId> = divisions[1..]
                .iter()
                .flat_map(|t| active_games(&mut store, *t).unwrap())
                .map(|(_, g, _)| g)
                .collect();
            late.iter()
                .all(|(_, g, _)| !still.contains(g))
                .then_some(())
        })
        .await;
    assert!(ended.is_some(), "timed out: {}", bot_log(dir.path()));
    let timeouts = late.len();
    assert!(timeouts > 100, "{timeouts} lost on time");
    // The withdrawn player's pairings are scored (forfeits).
    {
        let mut s = tara_bot::store::Store::open(&db).unwrap();
        let leaving = UserId::new(leaving.to_string());
        let open = s
            .read(|tx| tx.pairings(last, None))
            .unwrap()
            .into_iter()
            .filter(|p| {
                p.result.is_none() && (p.player0 == leaving || p.player1.as_ref() == Some(&leaving))
            })
            .count();
        assert_eq!(
            open, 0,
            "the withdrawn player's pairings have their results"
        );
    }
    within_discords_limits(&fake);
    println!(
        "200-player league through Discord after division 1: a player withdrawn, {timeouts} \
         games lost on time after a move each (the bot's clock check), {} requests, in {:?}",
        fake.requests().len() - rest_from,
        rest_at.elapsed()
    );
    // Every other game of season 1 through Discord, the 19 divisions side by side.
    let season_from = fake.requests().len();
    let season_at = std::time::Instant::now();
    let rest = futures_util::future::join_all(
        divisions[1..]
            .iter()
            .map(|t| play_out(&fake, &db, *t, &players)),
    )
    .await
    .into_iter()
    .collect::<anyhow::Result<Vec<_>>>()
    .unwrap_or_else(|e| panic!("{e:#}: {}", bot_log(dir.path())));
    assert!(rest.iter().all(|p| p.refused == 0));
    let rest_games: usize = rest.iter().map(|p| p.games).sum();
    let played_in = season_at.elapsed();
    // Season 1 ends (every game of every division played, none lost), and, with no days
    // between seasons, the bot's own clock check starts season 2: its divisions' threads open
    // (the 20 of season 1 archived), and everyone still in the league is told where their
    // games are, in one message, within two minutes (the 40 messages that end season 1's
    // divisions go first in the league's channel, at Discord's 5 in 5 seconds a channel).
    let (fake_ref, dir_path) = (&fake, dir.path());
    let posted = move |needle: &'static str| {
        let (fake, dir) = (fake_ref, dir_path);
        async move {
            fake.wait_for(Duration::from_secs(60), |f| {
                f.channel_messages(CH)
                    .iter()
                    .position(|m| m["content"].as_str().is_some_and(|c| c.contains(needle)))
            })
            .await
            .unwrap_or_else(|| panic!("no \"{needle}\": {}", bot_log(dir)))
        }
    };
    let season_1 = posted("season 1 is over").await;
    let season_1_at = std::time::Instant::now();
    // In the league's channel in the order owed, whatever owed them (the last resignation's
    // command, the clock check): season 1's end, then season 2's start.
    let season_2 = posted("**season 2** starts").await;
    assert!(
        season_1 < season_2,
        "season 2 started before season 1 ended"
    );
    {
        let mut s = tara_bot::store::Store::open(&db).unwrap();
        for t in &divisions {
            let pairings = s.read(|tx| tx.pairings(*t, None)).unwrap();
            assert!(
                pairings.iter().all(|p| p.result.is_some()),
                "every pairing of {t:?} has its result"
            );
        }
    }
    let staying: Vec<(u64, String)> = players
        .iter()
        .filter(|(id, _)| *id != leaving)
        .cloned()
        .collect();
    everyone_told(
        &fake,
        dir.path(),
        &staying,
        Duration::from_secs(120),
        told,
        season_2,
    )
    .await;
    let season_2_told = season_1_at.elapsed();
    let threads = threads_in(&fake, CH);
    assert_eq!(threads.len(), 40, "a thread a division, each season");
    // Each of season 1's threads was archived once its division's last game had ended. The
    // games were played far faster than Discord lets a bot post in one thread (five messages
    // in five seconds), so some of their messages (a timeout, a match's next game) were still
    // owed then: posted after it, they unarchive the thread, as a later message does, and it
    // archives itself after a day of quiet (docs/operating.md). Nothing is left owed.
    let season_1: Vec<String> = threads[..20]
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    for id in &season_1 {
        let path = format!("/api/v10/channels/{id}");
        assert!(
            fake.requests().iter().any(|r| r.method == "PATCH"
                && r.path == path
                && r.json.as_ref().is_some_and(|j| j["archived"] == true)),
            "thread {id} archived"
        );
    }
    all_delivered(&fake, dir.path()).await;
    fake.advance_clock(Duration::from_secs(24 * 3600 + 60));
    for id in &season_1 {
        assert!(
            fake.is_archived(id.parse().unwrap()),
            "thread {id} archived"
        );
    }
    within_discords_limits(&fake);
    println!(
        "200-player league, the rest of season 1 through Discord (19 divisions side by side): \
         {rest_games} games in {played_in:?}, {} requests; season 2 started by the clock check \
         and all 199 players told {season_2_told:?} after season 1's end was posted",
        fake.requests().len() - season_from,
    );
}

/// The threads opened in `parent`, oldest first.
fn threads_in(fake: &FakeDiscord, parent: u64) -> Vec<Value> {
    fake.threads()
        .into_iter()
        .filter(|t| t["parent_id"].as_str() == Some(&parent.to_string()))
        .collect()
}

/// Waits up to 3 minutes until the bot in `dir` owes no message.
async fn all_delivered(fake: &FakeDiscord, dir: &Path) {
    // One connection, read again at each change (opening the file checks all of it).
    let mut s = tara_bot::store::Store::open(dir.join("tara.db")).unwrap();
    let all_out = fake
        .wait_for(Duration::from_secs(180), |_| {
            (s.read(|tx| tx.unsent_count()).unwrap() == 0).then_some(())
        })
        .await;
    assert!(all_out.is_some(), "messages still owed: {}", bot_log(dir));
}

/// Issue 44's round robin through the fake Discord with every limit on: 64 players all at once
/// (2,016 games) on a server that already has 600 active threads. It starts: a thread a round
/// (63), opened at Discord's pace for thread creation (50 a minute here), every player told
/// once where their games are as soon as the threads exist, nothing refused; then all 2,016
/// games are played to the end through Discord and every round's thread is archived.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_64_player_round_robin_on_a_busy_server_starts_a_thread_a_round() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start().await;
    fake.add_threads(FakeDiscord::OTHER_CHANNEL_ID, 600);
    let _bot = spawn_bot(&fake, dir.path());
    assert!(fake.wait_ready(T).await, "{}", bot_log(dir.path()));
    let moderator = Invoker::new(7, "mona").moderator();
    let players: Vec<(u64, String)> = (0..64u64)
        .map(|i| (4_000_000_000_000_000_000 + i, format!("q{i:02}")))
        .collect();
    let named: Vec<(u64, &str)> = players.iter().map(|(id, n)| (*id, n.as_str())).collect();
    ard_ri_round_robin(&fake, &moderator, "Samhain", &named).await;
    let start = fake
        .slash(moderator.clone(), CH, "tournament", sub("start", json!([])))
        .await;
    let answer = fake.response(start, T).await.expect("the start answered");
    let waited = answer.at.duration_since(fake.injected_at(start).unwrap());
    assert!(waited < Duration::from_secs(3), "answered after {waited:?}");
    let started = std::time::Instant::now();
    everyone_told(
        &fake,
        dir.path(),
        &players,
        Duration::from_secs(180),
        |_| true,
        0,
    )
    .await;
    let told_after = started.elapsed() + waited;
    let threads: Vec<Value> = fake
        .threads()
        .into_iter()
        .filter(|t| t["parent_id"].as_str() == Some(&CH.to_string()))
        .collect();
    assert_eq!(threads.len(), 63, "a thread a round");
    for t in &threads {
        let id = t["id"].as_str().unwrap().parse::<u64>().unwrap();
        let first = fake.channel_messages(id);
        let listed: usize = first
            .iter()
            .map(|m| {
                m["content"]
                    .as_str()
                    .unwrap_or_default()
                    .matches("• game ")
                    .count()
            })
            .sum();
        assert_eq!(listed, 32, "{t}");
    }
    within_discords_limits(&fake);
    println!(
        "64-player round robin: answered in {waited:?}, 63 threads, everyone told after \
         {told_after:?}, {} requests",
        fake.requests().len()
    );
    // Then played to its end through Discord: all 2,016 games, a move each and a
    // resignation, each command naming its game in its round's thread.
    let rounds: Vec<u64> = threads
        .iter()
        .map(|t| t["id"].as_str().unwrap().parse::<u64>().unwrap())
        .collect();
    let (played, requests, took) = round_robin_played_out(
        &fake,
        dir.path(),
        TournamentId(1),
        "Samhain",
        &players,
        &rounds,
    )
    .await;
    assert_eq!(played.games, 2016);
    println!(
        "64-player round robin played out: {} games, {} moves, {requests} requests, in {took:?}",
        played.games, played.moves
    );
}
