//! What anyone may read of a server: the reads of the web companion. A server's games and
//! events are public once its moderators have put them on the web (`/settings web:on`), and
//! nothing of a server is before (or after they turn it off again).
//!
//! Every read here answers `None` alike for what is not public, what was deleted and what
//! never existed, so nothing read through it can tell a private server from no server.

use super::ratings::{player_view, PlayerView};
use super::session::{on_the_web, Outcome};
use crate::store::{
    GameId, GameRow, GameStatus, LadderId, LadderRow, LeagueId, LeagueRow, MoveRow, ServerId,
    TournamentId, TournamentRow, Tx, UserId,
};

/// `row` when it is there and its server is on the web.
fn if_public<T>(tx: &Tx, row: Option<T>, server: impl Fn(&T) -> &ServerId) -> Outcome<Option<T>> {
    match row {
        Some(r) if on_the_web(tx, server(&r))? => Ok(Some(r)),
        _ => Ok(None),
    }
}

/// Public game `id`.
fn public_game_row(tx: &Tx, id: GameId) -> Outcome<Option<GameRow>> {
    if_public(tx, tx.game(id)?, |g| &g.server_id)
}

/// Public game `id` and its moves.
pub(crate) fn public_game(tx: &Tx, id: GameId) -> Outcome<Option<(GameRow, Vec<MoveRow>)>> {
    let Some(game) = public_game_row(tx, id)? else {
        return Ok(None);
    };
    let moves = tx.moves(game.id)?;
    Ok(Some((game, moves)))
}

/// Public game `id` and its number of moves: what a live page watches, without the moves.
pub(crate) fn public_game_plies(tx: &Tx, id: GameId) -> Outcome<Option<(GameRow, u32)>> {
    let Some(game) = public_game_row(tx, id)? else {
        return Ok(None);
    };
    let plies = tx.move_count(id)?;
    Ok(Some((game, plies)))
}

/// A public server's games: at most `listed` in progress and the latest `listed` finished.
pub(crate) struct ServerGames {
    pub live: Vec<GameRow>,
    pub finished: Vec<GameRow>,
}

/// The games of `server` when it is public.
pub(crate) fn public_server_games(
    tx: &Tx,
    server: &ServerId,
    listed: u32,
) -> Outcome<Option<ServerGames>> {
    if !on_the_web(tx, server)? {
        return Ok(None);
    }
    Ok(Some(ServerGames {
        live: tx.live_games(server, listed)?,
        finished: tx.server_games(server, GameStatus::Finished, listed)?,
    }))
}

/// Public tournament `id`.
pub(crate) fn public_tournament(tx: &Tx, id: TournamentId) -> Outcome<Option<TournamentRow>> {
    if_public(tx, tx.tournament(id)?, |t| &t.server_id)
}

/// Public league `id`.
pub(crate) fn public_league(tx: &Tx, id: LeagueId) -> Outcome<Option<LeagueRow>> {
    if_public(tx, tx.league(id)?, |l| &l.server_id)
}

/// Public ladder `id`.
pub(crate) fn public_ladder(tx: &Tx, id: LadderId) -> Outcome<Option<LadderRow>> {
    if_public(tx, tx.ladder(id)?, |l| &l.server_id)
}

/// Player `who` on public `server` at `now` (as `/profile` shows them); `None` too for someone
/// with no rating and no game there, who is nobody on that server's pages.
pub(crate) fn public_player(
    tx: &Tx,
    server: &ServerId,
    who: &UserId,
    now: i64,
) -> Outcome<Option<PlayerView>> {
    if !on_the_web(tx, server)? {
        return Ok(None);
    }
    Ok(player_view(tx, server, who, now)?
        .filter(|v| !v.card.ratings.is_empty() || !v.playing.is_empty() || !v.finished.is_empty()))
}
