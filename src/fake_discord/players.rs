//! Players at the fake Discord: a tournament's games played through Discord as people would,
//! for the tests and `tara-bot bench discord`. Which games are in progress, whose turn it is and
//! what is legal are read from the bot's SQLite database; every move and resignation goes in
//! as a slash command (and a button press) and waits for its answer.

use super::{FakeDiscord, Invoker, Recorded};
use crate::game::Position;
use crate::store::{GameId, GameStatus, Store, StoreError, TournamentId};
use anyhow::{anyhow, Context};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// How long a command may wait for its answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// What was played.
#[derive(Clone, Copy, Debug, Default)]
pub struct Played {
    pub games: usize,
    pub moves: usize,
    /// Commands answered with a refusal (none are expected: each player moves when on move).
    pub refused: usize,
    /// The thread of the last game played.
    pub thread: u64,
}

/// A game in progress: its thread, its id and its two players (the first seat first).
pub type ActiveGame = (u64, GameId, [u64; 2]);

/// The games in progress of tournament `t` in the bot's database (`store`: opened once by the
/// caller and read again for each question, as the bot writes beside it).
pub fn active_games(store: &mut Store, t: TournamentId) -> anyhow::Result<Vec<ActiveGame>> {
    let games = store.read(|tx| {
        let mut out = Vec::new();
        for p in tx.pairings(t, None)? {
            let Some(g) = p.game_id.map(|id| tx.game(id)).transpose()?.flatten() else {
                continue;
            };
            if g.status == GameStatus::Active {
                let id = |s: String| s.parse::<u64>().unwrap_or(0);
                out.push((
                    id(g.channel_id.to_string()),
                    g.id,
                    [
                        id(g.seats.first().to_string()),
                        id(g.seats.second().to_string()),
                    ],
                ));
            }
        }
        Ok::<_, StoreError>(out)
    })?;
    Ok(games)
}

/// `/command sub` with `options` by `who` in `channel`: its interaction id and its answer (an
/// error if it goes unanswered).
pub async fn subcommand(
    fake: &FakeDiscord,
    who: impl Into<Invoker>,
    channel: u64,
    (command, sub): (&str, &str),
    options: Value,
) -> anyhow::Result<(u64, Recorded)> {
    let id = fake
        .slash(
            who,
            channel,
            command,
            json!([{"name": sub, "type": 1, "options": options}]),
        )
        .await;
    let answer = fake
        .response(id, ANSWER_WITHIN)
        .await
        .with_context(|| format!("/{command} {sub} unanswered"))?;
    Ok((id, answer))
}

/// The messages of `channel` (its first `after` left out) from its first "Your games:" on (a
/// long list goes in parts) that `keep` keeps, in order, once every one of `players` is pinged
/// in them; `None` until then.
pub fn told_where(
    fake: &FakeDiscord,
    channel: u64,
    players: &[(u64, String)],
    after: usize,
    keep: fn(&str) -> bool,
) -> Option<Vec<String>> {
    let all: Vec<String> = fake
        .channel_messages(channel)
        .iter()
        .skip(after)
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .skip_while(|c| !c.contains("Your games:"))
        .filter(|c| keep(c))
        .collect();
    let text = all.join("\n");
    players
        .iter()
        .all(|(id, _)| text.contains(&format!("<@{id}>")))
        .then_some(all)
}

/// A player's line in a league division's message ("Your games:", or the ping that begins a
/// division's list), for [`told_where`].
pub fn told(c: &str) -> bool {
    c.contains("Your games:") || c.starts_with("<@")
}

/// `players`' name for `id` (`user{id}` for one not among them).
fn name_of(players: &[(u64, String)], id: u64) -> String {
    players
        .iter()
        .find(|p| p.0 == id)
        .map_or_else(|| format!("user{id}"), |p| p.1.clone())
}

/// `n` moves in `game` (in `channel`) through Discord, each by the player on move, their first
/// legal move, naming the game (`game:`); counted in `played`.
pub async fn play_moves(
    fake: &FakeDiscord,
    store: &mut Store,
    (channel, game): (u64, GameId),
    players: &[(u64, String)],
    n: usize,
    played: &mut Played,
) -> anyhow::Result<()> {
    for _ in 0..n {
        let (who, m) = {
            let (g, moves) =
                store.read(|tx| Ok::<_, StoreError>((tx.game(game)?, tx.moves(game)?)))?;
            let g = g.ok_or_else(|| anyhow!("no game {game:?}"))?;
            let mut pos = Position::new(g.options);
            for m in &moves {
                pos.play_text(&m.notation)
                    .map_err(|e| anyhow!("stored move {}: {e:?}", m.notation))?;
            }
            let side = pos
                .to_move()
                .ok_or_else(|| anyhow!("game {game:?} is over"))?;
            let who: u64 = g.seats[side].to_string().parse()?;
            (who, pos.legal_moves()[0].to_string())
        };
        let id = fake
            .slash(
                (who, name_of(players, who).as_str()),
                channel,
                "move",
                json!([
                    {"name": "move", "type": 3, "value": m},
                    {"name": "game", "type": 4, "value": game.0},
                ]),
            )
            .await;
        let r = fake
            .response(id, ANSWER_WITHIN)
            .await
            .with_context(|| format!("the move {m} in game {game:?} unanswered"))?;
        if r.ephemeral() {
            played.refused += 1;
        } else {
            played.moves += 1;
        }
    }
    Ok(())
}

/// Plays every game of tournament `t` to its end through Discord, as its players would: in each
/// game in progress the player on move plays their first legal move, once each, then the player
/// with the lower id resigns (`/resign`, confirmed with its button); every command names its
/// game (`game:`), as in a thread that holds several. Until no game of the tournament is in
/// progress (the next round's, a match's next game, included).
pub async fn play_out(
    fake: &FakeDiscord,
    db: &Path,
    t: TournamentId,
    players: &[(u64, String)],
) -> anyhow::Result<Played> {
    // One connection for the whole play (opening the file checks all of it).
    let store = &mut Store::open(db)?;
    let mut played = Played::default();
    loop {
        let todo = active_games(store, t)?;
        if todo.is_empty() {
            return Ok(played);
        }
        for (channel, game, two) in todo {
            played.thread = channel;
            if channel == 0 {
                return Err(anyhow!("game {game:?} has no thread"));
            }
            play_moves(fake, store, (channel, game), players, 2, &mut played).await?;
            let loser = two[0].min(two[1]);
            let who = Invoker::new(loser, &name_of(players, loser));
            let id = fake
                .slash(
                    &who,
                    channel,
                    "resign",
                    json!([{"name": "game", "type": 4, "value": game.0}]),
                )
                .await;
            let ask = fake
                .response(id, ANSWER_WITHIN)
                .await
                .with_context(|| format!("the resignation of game {game:?} unanswered"))?;
            let confirm = ask
                .custom_ids()
                .first()
                .cloned()
                .with_context(|| format!("no button to confirm: {:?}", ask.content()))?;
            let click = fake
                .button(&who, channel, fake.message_from(&ask), &confirm)
                .await;
            fake.response(click, ANSWER_WITHIN)
                .await
                .with_context(|| format!("the button of game {game:?} unanswered"))?;
            let end = fake.wait_followups(click, 1, ANSWER_WITHIN).await;
            if !end
                .first()
                .and_then(|e| e.content())
                .is_some_and(|c| c.contains("resigned"))
            {
                return Err(anyhow!("game {game:?} not resigned: {:?}", end.first()));
            }
            played.games += 1;
        }
    }
}
