//! What the tournament pictures show: the standings table, a round robin's crosstable and a
//! knockout bracket. Filled in by the bot from the tournament's stored pairings; scores and
//! tiebreaks arrive already written ("2½", "7¼"), so the pictures make no scoring decisions.

/// One row of a standings picture.
#[derive(Clone, Debug, PartialEq)]
pub struct StandingsRow {
    /// The place; players still tied after every tiebreak share it.
    pub place: u32,
    /// Whether the place is shared (drawn as "3=").
    pub shared: bool,
    pub name: String,
    /// The score as written, e.g. "2½".
    pub score: String,
    /// One value per column of [`StandingsCard::tiebreaks`], as written.
    pub tiebreaks: Vec<String>,
    /// How many of the player's games are in progress.
    pub playing: u32,
    /// Withdrawn from the tournament (the row is drawn muted, marked "withdrawn").
    pub withdrawn: bool,
}

/// A tournament's standings picture.
#[derive(Clone, Debug, PartialEq)]
pub struct StandingsCard {
    /// E.g. "Samhain Swiss · High Kings of Tara (hkot-1)".
    pub title: String,
    /// E.g. "After round 3 of 5 · 2 games in progress".
    pub subtitle: String,
    /// The tiebreak columns' short names, in order, e.g. ["BH-C1", "BH", "SB", "Wins"].
    pub tiebreaks: Vec<String>,
    /// The rows in standings order.
    pub rows: Vec<StandingsRow>,
}

/// One player of a crosstable, in the table's order (their number in the Berger table).
#[derive(Clone, Debug, PartialEq)]
pub struct CrossPlayer {
    pub name: String,
    /// The score as written, e.g. "3½".
    pub score: String,
    /// The place in the standings.
    pub place: u32,
}

/// A round robin's crosstable picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Crosstable {
    pub title: String,
    pub subtitle: String,
    pub players: Vec<CrossPlayer>,
    /// `cells[i][j]`: player i's results against player j as written, one mark per game
    /// ("1", "½", "0", "+" and "−" for forfeits, "…" for a game in progress), separated by
    /// spaces in a double round robin; "" when they have not played yet. The diagonal is
    /// ignored.
    pub cells: Vec<Vec<String>>,
}

/// One seat of a knockout tie.
#[derive(Clone, Debug, PartialEq)]
pub enum BracketSeat {
    /// A player: their seed, name and points in the tie so far ("1½", or "" before it starts).
    Player {
        seed: u32,
        name: String,
        score: String,
    },
    /// No opponent: the other seat goes through.
    Bye,
    /// Not known yet: the winner of an earlier tie.
    Waiting,
}

/// One tie (a match, with its deciders) of a knockout bracket.
#[derive(Clone, Debug, PartialEq)]
pub struct BracketTie {
    pub seats: [BracketSeat; 2],
    /// The seat that went through, once decided.
    pub winner: Option<usize>,
    /// A short note under the tie, e.g. "decider in progress" (or "").
    pub note: String,
}

/// A knockout bracket picture: its rounds from the first to the final; round `r + 1` has half
/// as many ties as round `r`, tie `k` of it taking the winners of ties `2k` and `2k + 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct BracketCard {
    pub title: String,
    pub subtitle: String,
    /// Each round's name (e.g. "Semi-finals") and ties.
    pub rounds: Vec<(String, Vec<BracketTie>)>,
}
