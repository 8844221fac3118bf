//! Live pages: server-sent events that tell an open page its game or event changed, through
//! any bot process. One watcher a page's subject, however many pages are open on it, looks at
//! the store every [`LIVE_POLL`] and tells every page at once; the page reloads.

use super::pages::{self, Broken, Site};
use super::pool::Pool;
use crate::store::{GameId, LadderId, LeagueId, TournamentId};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// How often a watched subject is looked at: an update reaches its pages within this and
/// their reload.
const LIVE_POLL: Duration = Duration::from_millis(500);

/// What a live page watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Subject {
    Game(GameId),
    Tournament(TournamentId),
    League(LeagueId),
    Ladder(LadderId),
}

/// A subject's state as its pages compare it: `token` names it (the `?since=` of a page drawn
/// in it), `data` goes with the event (a game's number of moves).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Now {
    token: String,
    data: String,
}

impl Subject {
    /// Its state now; `None` when it is not public (or not there).
    fn read(self, pool: &Pool, site: &Site) -> Result<Option<Now>, Broken> {
        pool.with(|store| {
            let event = |parts: Option<pages::Parts>| {
                parts.map(|p| {
                    let token = p.token();
                    Now {
                        data: token.clone(),
                        token,
                    }
                })
            };
            Ok(match self {
                Subject::Game(id) => pages::game_state(store, id)?.map(|s| Now {
                    token: s.token(),
                    data: s.plies.to_string(),
                }),
                Subject::Tournament(id) => event(pages::tournament_parts(store, site, id)?),
                Subject::League(id) => event(pages::league_parts(store, site, id, None)?),
                Subject::Ladder(id) => event(pages::ladder_parts(store, site, id)?),
            })
        })
    }
}

/// The subjects live pages watch, each with its watcher's channel, and what the watchers
/// read the store with.
pub(super) struct Live {
    pool: Arc<Pool>,
    site: Site,
    watched: Mutex<HashMap<Subject, watch::Receiver<Option<Now>>>>,
}

impl Live {
    pub(super) fn new(pool: Arc<Pool>, site: Site) -> Live {
        Live {
            pool,
            site,
            watched: Mutex::default(),
        }
    }

    /// `subject`'s state, read on a blocking thread.
    async fn state(self: &Arc<Self>, subject: Subject) -> Result<Option<Now>, Broken> {
        let live = self.clone();
        tokio::task::spawn_blocking(move || subject.read(&live.pool, &live.site))
            .await
            .unwrap_or_else(|e| Err(Broken(format!("a live page panicked: {e}"))))
    }
}

/// A page's view of `subject`'s state: the watcher's, started when the first page opens and
/// ended when the last one closes (or the subject stops being public: its state becomes
/// `None`).
fn watch(live: &Arc<Live>, subject: Subject, first: Now) -> watch::Receiver<Option<Now>> {
    let mut watched = live.watched.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(rx) = watched.get(&subject).filter(|rx| rx.has_changed().is_ok()) {
        return rx.clone();
    }
    let (tx, rx) = watch::channel(Some(first));
    watched.insert(subject, rx.clone());
    let live = live.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(LIVE_POLL).await;
            if tx.receiver_count() <= 1 {
                // Only the map's own receiver is left: no page is open.
                break;
            }
            match live.state(subject).await {
                Ok(now) => {
                    let gone = now.is_none();
                    tx.send_if_modified(|last| {
                        let changed = *last != now;
                        *last = now;
                        changed
                    });
                    if gone {
                        break;
                    }
                }
                // The store could not be read this time: no change, try again.
                Err(_) => continue,
            }
        }
        let mut watched = live.watched.lock().unwrap_or_else(|e| e.into_inner());
        if watched
            .get(&subject)
            .is_some_and(|rx| rx.same_channel(&tx.subscribe()))
        {
            watched.remove(&subject);
        }
    });
    rx
}

/// The events of `subject`: `changed` each time it changes; at once when the page was drawn
/// before its latest change (`since`, the state the page names: a change made while the page
/// was on its way). The stream ends when the subject stops being public; `None` when it is
/// not public now.
pub(super) async fn events(
    live: &Arc<Live>,
    subject: Subject,
    since: Option<String>,
) -> Result<Option<Response>, Broken> {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let Some(first) = live.state(subject).await? else {
        return Ok(None);
    };
    let behind = since.is_some_and(|since| since != first.token);
    let mut rx = watch(live, subject, first);
    if behind {
        rx.mark_changed();
    } else {
        rx.mark_unchanged();
    }
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.changed().await.ok()?;
        let now = rx.borrow_and_update().clone()?;
        let event = Event::default().event("changed").data(now.data);
        Some((Ok::<_, std::convert::Infallible>(event), rx))
    });
    Ok(Some(
        Sse::new(stream)
            .keep_alive(KeepAlive::default())
            .into_response(),
    ))
}
