//! Owed messages delivered side by side: one queue a place (a channel, a game's thread by its
//! key, or a player's direct messages), each place's messages in the order they were queued,
//! the places at once. A thread waiting out its own rate limit (Discord allows a channel about
//! five messages in five seconds) then holds back only its own messages, not every other
//! channel's, and a backlog of a thousand messages in twenty threads goes out twenty at a time.
//! What a delivery does is the adapter's ([`Queues::new`]); this only keeps the order and
//! knows which messages are on their way.

use crate::store::MessageId;
use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The most owed messages held in the queues: claiming more waits until these have gone.
pub(super) const MOST_HELD: usize = 1_000;

/// Delivers one job.
pub(super) type Deliver<J> =
    Box<dyn Fn(J) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

struct State<J> {
    /// Each place that has a worker, and what waits there after what that worker delivers now.
    queues: HashMap<String, VecDeque<(Option<MessageId>, J)>>,
    /// The outbox ids queued or being delivered.
    held: HashSet<MessageId>,
}

/// A process's delivery queues of jobs `J`.
pub(super) struct Queues<J> {
    state: Mutex<State<J>>,
    deliver: Deliver<J>,
}

impl<J: Send + 'static> Queues<J> {
    /// Queues whose jobs `deliver` delivers.
    pub(super) fn new(deliver: Deliver<J>) -> Arc<Queues<J>> {
        Arc::new(Queues {
            state: Mutex::new(State {
                queues: HashMap::new(),
                held: HashSet::new(),
            }),
            deliver,
        })
    }

    fn state(&self) -> MutexGuard<'_, State<J>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The outbox ids queued or being delivered.
    pub(super) fn held(&self) -> HashSet<MessageId> {
        self.state().held.clone()
    }

    /// Queues `job` (the owed message `id`) behind what `place` already waits for; a message
    /// already held is not queued twice.
    pub(super) fn push(self: &Arc<Self>, place: String, id: Option<MessageId>, job: J) {
        let mut state = self.state();
        if let Some(id) = id {
            if !state.held.insert(id) {
                return;
            }
        }
        match state.queues.get_mut(&place) {
            Some(queue) => queue.push_back((id, job)),
            None => {
                state
                    .queues
                    .insert(place.clone(), VecDeque::from([(id, job)]));
                tokio::spawn(self.clone().work(place));
            }
        }
    }

    /// Delivers the jobs of `place` one after another until none is left.
    async fn work(self: Arc<Self>, place: String) {
        // Should a delivery panic, the place is freed (what it held is taken again once its
        // lease runs out) instead of queueing behind a worker that is gone.
        let mut guard = Freed {
            queues: &self,
            place: &place,
            current: None,
        };
        loop {
            let next = {
                let mut state = guard.queues.state();
                match state.queues.get_mut(&place).and_then(VecDeque::pop_front) {
                    Some(next) => next,
                    None => {
                        state.queues.remove(&place);
                        guard.place = "";
                        return;
                    }
                }
            };
            let (id, job) = next;
            guard.current = id;
            (self.deliver)(job).await;
            if let Some(id) = id {
                self.state().held.remove(&id);
            }
            guard.current = None;
        }
    }
}

/// Frees a worker's place if it stops without emptying it.
struct Freed<'a, J> {
    queues: &'a Queues<J>,
    place: &'a str,
    current: Option<MessageId>,
}

impl<J> Drop for Freed<'_, J> {
    fn drop(&mut self) {
        if self.place.is_empty() {
            return;
        }
        let mut state = self
            .queues
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let dropped = state.queues.remove(self.place).unwrap_or_default();
        for id in dropped.iter().filter_map(|(id, _)| *id).chain(self.current) {
            state.held.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Jobs: (place, id, how long it takes).
    fn queues(log: Arc<Mutex<Vec<i64>>>) -> Arc<Queues<(i64, u64)>> {
        Queues::new(Box::new(move |(id, ms): (i64, u64)| {
            let log = log.clone();
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                log.lock().unwrap().push(id);
            })
        }))
    }

    #[tokio::test]
    async fn each_place_in_order_the_places_side_by_side_and_nothing_queued_twice() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let q = queues(log.clone());
        // A slow place (three messages of 300 ms) and a quick one (two of 1 ms).
        for (place, id, ms) in [
            ("a", 1, 300),
            ("a", 2, 300),
            ("b", 3, 1),
            ("a", 4, 300),
            ("b", 5, 1),
        ] {
            q.push(place.into(), Some(MessageId(id)), (id, ms));
        }
        // Already on its way: not queued again.
        q.push("a".into(), Some(MessageId(2)), (2, 300));
        assert_eq!(q.held().len(), 5);
        while !q.held().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let log = log.lock().unwrap().clone();
        assert_eq!(log.len(), 5, "{log:?}");
        // b's went while a's first was still going; a's in their order.
        assert_eq!(&log[..2], &[3, 5]);
        assert_eq!(&log[2..], &[1, 2, 4]);
    }
}
