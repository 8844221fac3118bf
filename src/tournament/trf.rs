//! The FIDE Tournament Report File, 2016 format (TRF-16), as far as the Dutch pairing needs it:
//! `001` player lines (starting rank, name, rating, points, and per round the opponent, colour
//! and result), `XXR` (the number of rounds) and bbpPairings' `XXC white1` / `XXC black1` (the
//! first round's colour of the top player). Other lines are kept as they are; lines that would
//! change the pairing in ways not supported here (other point systems, accelerations, forbidden
//! pairs, team tournaments) are refused rather than ignored.

use super::points::Points;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A colour in a TRF file: `w` moved first ("White"), `b` second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    White,
    Black,
}

impl Colour {
    pub fn opposite(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }
    fn letter(self) -> char {
        match self {
            Colour::White => 'w',
            Colour::Black => 'b',
        }
    }
}

/// The result letter of one round of a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// `1`, `=`, `0`: a game played over the board.
    Win,
    Draw,
    Loss,
    /// `W`, `D`, `L`: played, but unrated.
    UnratedWin,
    UnratedDraw,
    UnratedLoss,
    /// `+`, `-`: a forfeit, won or lost (with an opponent), or a bye of 1 or 0 without one.
    ForfeitWin,
    ForfeitLoss,
    /// `U`: the pairing-allocated bye.
    PairingBye,
    /// `F`, `H`, `Z`: byes of 1, ½ and 0 points (requested or absent).
    FullBye,
    HalfBye,
    ZeroBye,
    /// A blank: not paired.
    NotPaired,
}

impl Code {
    fn from_letter(c: char) -> Option<Code> {
        Some(match c.to_ascii_uppercase() {
            '1' => Code::Win,
            '=' => Code::Draw,
            '0' => Code::Loss,
            'W' => Code::UnratedWin,
            'D' => Code::UnratedDraw,
            'L' => Code::UnratedLoss,
            '+' => Code::ForfeitWin,
            '-' => Code::ForfeitLoss,
            'U' => Code::PairingBye,
            'F' => Code::FullBye,
            'H' => Code::HalfBye,
            'Z' => Code::ZeroBye,
            ' ' => Code::NotPaired,
            _ => return None,
        })
    }

    fn letter(self) -> char {
        match self {
            Code::Win => '1',
            Code::Draw => '=',
            Code::Loss => '0',
            Code::UnratedWin => 'W',
            Code::UnratedDraw => 'D',
            Code::UnratedLoss => 'L',
            Code::ForfeitWin => '+',
            Code::ForfeitLoss => '-',
            Code::PairingBye => 'U',
            Code::FullBye => 'F',
            Code::HalfBye => 'H',
            Code::ZeroBye => 'Z',
            Code::NotPaired => ' ',
        }
    }

    /// The points it is worth (win 1, draw ½, loss 0).
    pub fn points(self) -> Points {
        match self {
            Code::Win | Code::UnratedWin | Code::ForfeitWin | Code::PairingBye | Code::FullBye => {
                Points::ONE
            }
            Code::Draw | Code::UnratedDraw | Code::HalfBye => Points::HALF,
            Code::Loss
            | Code::UnratedLoss
            | Code::ForfeitLoss
            | Code::ZeroBye
            | Code::NotPaired => Points::ZERO,
        }
    }

    /// The result a player's opponent must have in the same game.
    fn mirrored(self) -> Option<Code> {
        Some(match self {
            Code::Win => Code::Loss,
            Code::Loss => Code::Win,
            Code::Draw => Code::Draw,
            Code::UnratedWin => Code::UnratedLoss,
            Code::UnratedLoss => Code::UnratedWin,
            Code::UnratedDraw => Code::UnratedDraw,
            Code::ForfeitWin => Code::ForfeitLoss,
            Code::ForfeitLoss => Code::ForfeitWin,
            _ => return None,
        })
    }
}

/// One round of one player: the opponent's starting rank (`None` for `0000` or blank), the
/// colour (`None` for `-` or blank) and the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoundEntry {
    pub opponent: Option<u32>,
    pub colour: Option<Colour>,
    pub code: Code,
}

impl RoundEntry {
    /// The entry of a round the player was not paired in (written blank).
    pub const NOT_PAIRED: RoundEntry = RoundEntry {
        opponent: None,
        colour: None,
        code: Code::NotPaired,
    };

    /// A game played over the board (as opposed to a forfeit, a bye, or no pairing).
    pub fn played(&self) -> bool {
        self.opponent.is_some()
            && matches!(
                self.code,
                Code::Win
                    | Code::Draw
                    | Code::Loss
                    | Code::UnratedWin
                    | Code::UnratedDraw
                    | Code::UnratedLoss
            )
    }

    /// Whether the player took part in the round's pairing: had an opponent (even one who
    /// forfeited), or a pairing-allocated bye, or a `+` without an opponent (bbpPairings'
    /// reading, under which these count as having had the bye).
    pub fn participated(&self) -> bool {
        self.opponent.is_some() || matches!(self.code, Code::PairingBye | Code::ForfeitWin)
    }
}

/// A `001` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfPlayer {
    /// The starting rank (pairing number), from 1.
    pub rank: u32,
    pub name: String,
    /// The rating; 0 when blank.
    pub rating: u32,
    /// The points as written in the file.
    pub points: Points,
    /// The rank (place) in the standings, columns 86-89; `None` when blank.
    pub place: Option<u32>,
    /// One entry per round, from round 1; trailing rounds not paired are left out.
    pub rounds: Vec<RoundEntry>,
}

/// A tournament read from, or to be written as, a TRF-16 file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trf {
    /// The `001` lines in the file's order.
    pub players: Vec<TrfPlayer>,
    /// `XXR`: the number of rounds the tournament will have.
    pub total_rounds: Option<u32>,
    /// `XXC white1` / `XXC black1`: the colour of the top player in round 1.
    pub first_colour: Option<Colour>,
    /// Every other line (tournament name, dates, …), kept in order and written back first.
    pub other_lines: Vec<String>,
}

/// What is wrong with a TRF file, and on which line (1-based; 0 for the file as a whole).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct TrfError {
    pub line: usize,
    pub problem: String,
}

fn bad(line: usize, problem: impl Into<String>) -> TrfError {
    TrfError {
        line,
        problem: problem.into(),
    }
}

/// The characters `from..to` (0-based, end exclusive) of a line, as far as it goes.
fn field(chars: &[char], from: usize, to: usize) -> String {
    chars
        .get(from.min(chars.len())..to.min(chars.len()))
        .unwrap_or(&[])
        .iter()
        .collect()
}

fn parse_points(text: &str, line: usize) -> Result<Points, TrfError> {
    let t = text.trim();
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let whole: u32 = whole.parse().map_err(|_| {
        bad(
            line,
            format!("the points (columns 81-84) \"{t}\" are not a number"),
        )
    })?;
    let halves = match frac {
        "" | "0" | "00" => 2 * whole,
        "5" | "50" => 2 * whole + 1,
        _ => {
            return Err(bad(
                line,
                format!("the points \"{t}\" are not a whole or half number"),
            ))
        }
    };
    Ok(Points::halves(halves))
}

fn parse_rank(text: &str, line: usize, what: &str) -> Result<u32, TrfError> {
    let t = text.trim();
    match t.parse::<u32>() {
        Ok(0) => Err(bad(line, format!("{what} is 0; starting ranks begin at 1"))),
        Ok(n) => Ok(n),
        Err(_) => Err(bad(line, format!("{what} \"{t}\" is not a number"))),
    }
}

fn parse_player(text: &str, line: usize) -> Result<TrfPlayer, TrfError> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() < 84 {
        return Err(bad(
            line,
            format!(
                "a 001 line needs at least 84 characters (the points end at column 84); this one has {}",
                chars.len()
            ),
        ));
    }
    let rank = parse_rank(
        &field(&chars, 4, 8),
        line,
        "the starting rank (columns 5-8)",
    )?;
    let name = field(&chars, 14, 47).trim().to_string();
    let rating_text = field(&chars, 48, 52);
    let rating = if rating_text.trim().is_empty() {
        0
    } else {
        rating_text.trim().parse().map_err(|_| {
            bad(
                line,
                format!(
                    "the rating (columns 49-52) \"{}\" is not a number",
                    rating_text.trim()
                ),
            )
        })?
    };
    let points = parse_points(&field(&chars, 80, 84), line)?;
    let place_text = field(&chars, 85, 89);
    let place = match place_text.trim() {
        "" => None,
        t => Some(t.parse().map_err(|_| {
            bad(
                line,
                format!("the rank (columns 86-89) \"{t}\" is not a number"),
            )
        })?),
    };
    let mut rounds = Vec::new();
    let mut start = 91;
    while start + 8 <= chars.len() {
        rounds.push(parse_round(&chars, start, rounds.len() + 1, rank, line)?);
        start += 10;
    }
    if chars.iter().skip(start.min(chars.len())).any(|&c| c != ' ') {
        return Err(bad(
            line,
            format!(
                "unexpected text at column {}: each round takes 10 columns from column 92 (opponent, colour, result)",
                start + 1
            ),
        ));
    }
    while rounds.last() == Some(&RoundEntry::NOT_PAIRED) {
        rounds.pop();
    }
    Ok(TrfPlayer {
        rank,
        name,
        rating,
        points,
        place,
        rounds,
    })
}

/// Round `round` of player `rank`'s line, from column `start` (0-based): the opponent (4
/// columns), the colour and the result, each checked against the others.
fn parse_round(
    chars: &[char],
    start: usize,
    round: usize,
    rank: u32,
    line: usize,
) -> Result<RoundEntry, TrfError> {
    let opp_text = field(chars, start, start + 4);
    let opponent = match opp_text.trim() {
        "" => None,
        t if t.chars().all(|c| c == '0') => None,
        _ => {
            let n = parse_rank(&opp_text, line, &format!("round {round}'s opponent"))?;
            if n == rank {
                return Err(bad(
                    line,
                    format!("in round {round} player {rank} is paired with themselves"),
                ));
            }
            Some(n)
        }
    };
    let colour = match chars[start + 5] {
        'w' => Some(Colour::White),
        'b' => Some(Colour::Black),
        '-' | ' ' => None,
        c => {
            return Err(bad(
                line,
                format!("round {round}'s colour is '{c}'; it must be w, b or -"),
            ))
        }
    };
    let code = Code::from_letter(chars[start + 7]).ok_or_else(|| {
        bad(
            line,
            format!(
                "round {round}'s result is '{}'; it must be one of 1 = 0 W D L + - U F H Z or blank",
                chars[start + 7]
            ),
        )
    })?;
    let entry = RoundEntry {
        opponent,
        colour,
        code,
    };
    check_round(&entry, opp_text.trim(), round, line)?;
    Ok(entry)
}

/// Whether a round's opponent, colour and result fit together: a bye has neither opponent nor
/// colour, a forfeit's colour comes with an opponent, a game has both (`0000 - =` is read as
/// a half-point bye, as bbpPairings reads it). `opp_text`: the opponent's columns, trimmed.
fn check_round(
    entry: &RoundEntry,
    opp_text: &str,
    round: usize,
    line: usize,
) -> Result<(), TrfError> {
    let RoundEntry {
        opponent,
        colour,
        code,
    } = *entry;
    match code {
        Code::NotPaired if opp_text.is_empty() && colour.is_none() => Ok(()),
        Code::NotPaired | Code::PairingBye | Code::FullBye | Code::HalfBye | Code::ZeroBye
            if opponent.is_some() || colour.is_some() =>
        {
            Err(bad(
                line,
                format!(
                    "round {round}: a bye ('{}') has no opponent and no colour (write 0000 - {})",
                    code.letter(),
                    code.letter()
                ),
            ))
        }
        Code::ForfeitWin | Code::ForfeitLoss if opponent.is_none() && colour.is_some() => Err(bad(
            line,
            format!("round {round}: a colour without an opponent"),
        )),
        Code::Win
        | Code::Draw
        | Code::Loss
        | Code::UnratedWin
        | Code::UnratedDraw
        | Code::UnratedLoss => match (opponent, colour) {
            (Some(_), Some(_)) => Ok(()),
            // bbpPairings reads `0000 - =` as a half-point bye.
            (None, None) if code == Code::Draw => Ok(()),
            (Some(_), None) => Err(bad(
                line,
                format!("round {round}: a game against {opp_text} needs a colour, w or b"),
            )),
            _ => Err(bad(
                line,
                format!(
                    "round {round}: the result '{}' is a game, which needs an opponent",
                    code.letter()
                ),
            )),
        },
        _ => Ok(()),
    }
}

impl Trf {
    /// Reads a TRF-16 file.
    pub fn parse(text: &str) -> Result<Trf, TrfError> {
        let mut trf = Trf::default();
        let mut lines_of: BTreeMap<u32, usize> = BTreeMap::new();
        let mut xxr_line = 0;
        // Lines end with LF, CRLF or CR (bbpPairings' own test files use CR).
        let text = text.replace("\r\n", "\n");
        for (i, l) in text.split(['\n', '\r']).enumerate() {
            let line = i + 1;
            let prefix: String = l.chars().take(3).collect();
            let rest: String = l.chars().skip(3).collect();
            match prefix.as_str() {
                "001" => {
                    let p = parse_player(l, line)?;
                    if let Some(first) = lines_of.insert(p.rank, line) {
                        return Err(bad(
                            line,
                            format!("starting rank {} is already used on line {first}", p.rank),
                        ));
                    }
                    trf.players.push(p);
                }
                "XXR" | "142" => {
                    let n: u32 = rest.trim().parse().map_err(|_| {
                        bad(
                            line,
                            format!("{prefix} needs the number of rounds, not \"{}\"", rest.trim()),
                        )
                    })?;
                    if n == 0 {
                        return Err(bad(line, format!("{prefix}: a tournament has at least one round")));
                    }
                    trf.total_rounds = Some(n);
                    xxr_line = line;
                }
                "XXC" => {
                    for word in rest.split_whitespace() {
                        match word {
                            "white1" => trf.first_colour = Some(Colour::White),
                            "black1" => trf.first_colour = Some(Colour::Black),
                            other => {
                                return Err(bad(
                                    line,
                                    format!("XXC: \"{other}\" is not supported (only white1 or black1)"),
                                ))
                            }
                        }
                    }
                }
                "013" | "310" => return Err(bad(line, "team tournaments are not supported")),
                "162" | "BBW" | "BBD" | "BBL" | "BBZ" | "BBF" | "BBU" => {
                    return Err(bad(
                        line,
                        format!("{prefix}: only the standard points (win 1, draw ½, loss 0, bye 1) are supported"),
                    ))
                }
                "240" | "250" | "XXA" | "260" | "XXP" | "XXS" => {
                    return Err(bad(
                        line,
                        format!("{prefix}: byes in advance, accelerations and forbidden pairs are not supported"),
                    ))
                }
                _ => {
                    if !l.trim().is_empty() {
                        trf.other_lines.push(l.to_string());
                    }
                }
            }
        }
        trf.check(&lines_of, xxr_line)?;
        Ok(trf)
    }

    /// Points that add up, opponents that exist and agree with each other, and `XXR` not below
    /// the rounds played.
    fn check(&self, lines_of: &BTreeMap<u32, usize>, xxr_line: usize) -> Result<(), TrfError> {
        let by_rank: BTreeMap<u32, &TrfPlayer> = self.players.iter().map(|p| (p.rank, p)).collect();
        for p in &self.players {
            let line = lines_of[&p.rank];
            let sum: Points = p.rounds.iter().map(|e| e.code.points()).sum();
            if sum != p.points {
                return Err(bad(
                    line,
                    format!(
                        "the points (columns 81-84) say {}, but player {}'s results add up to {sum}",
                        p.points, p.rank
                    ),
                ));
            }
            for (r, e) in p.rounds.iter().enumerate() {
                let Some(o) = e.opponent else { continue };
                let round = r + 1;
                let Some(opp) = by_rank.get(&o) else {
                    return Err(bad(
                        line,
                        format!("round {round}: opponent {o} has no 001 line"),
                    ));
                };
                let theirs = opp.rounds.get(r).copied().unwrap_or(RoundEntry::NOT_PAIRED);
                // Both may have lost by forfeit (neither came).
                let double_forfeit =
                    e.code == Code::ForfeitLoss && theirs.code == Code::ForfeitLoss;
                let agrees = theirs.opponent == Some(p.rank)
                    && theirs.colour == e.colour.map(Colour::opposite)
                    && (Some(theirs.code) == e.code.mirrored() || double_forfeit);
                if !agrees {
                    return Err(bad(
                        line,
                        format!(
                            "round {round}: player {} has {} {} {}, but player {o} (line {}) has {}",
                            p.rank,
                            o,
                            e.colour.map_or('-', Colour::letter),
                            e.code.letter(),
                            lines_of[&o],
                            describe(&theirs)
                        ),
                    ));
                }
            }
        }
        if let Some(total) = self.total_rounds {
            let played = self.rounds_played();
            if played > total {
                return Err(bad(
                    xxr_line,
                    format!("XXR says {total} rounds, but {played} have been played"),
                ));
            }
        }
        Ok(())
    }

    /// The last round the file has paired, if it is not finished: the round, and the
    /// starting ranks of the players with no entry for it (a game in progress is written
    /// blank, as `/tournament export` writes it in the middle of a round, while a bye or a
    /// finished game of the round is already there). The round counts as bbpPairings counts
    /// it (an absence entered in advance for the next round does not make one); a player
    /// with no entry at all is a late entrant, unless the round is the first.
    pub fn unfinished_round(&self) -> Option<(u32, Vec<u32>)> {
        let paired = self
            .players
            .iter()
            .map(|p| match p.rounds.last() {
                Some(last) if !last.participated() => p.rounds.len() - 1,
                _ => p.rounds.len(),
            })
            .max()
            .unwrap_or(0);
        let mut missing: Vec<u32> = self
            .players
            .iter()
            .filter(|p| {
                paired > 0
                    && p.rounds
                        .get(paired - 1)
                        .is_none_or(|e| *e == RoundEntry::NOT_PAIRED)
                    && (paired == 1 || !p.rounds.is_empty())
            })
            .map(|p| p.rank)
            .collect();
        missing.sort_unstable();
        (!missing.is_empty()).then_some((paired as u32, missing))
    }

    /// The top player's colour in round 1: `XXC` if the file has it, otherwise inferred as
    /// bbpPairings does. In the first round in which any colour is written, take the players
    /// who had taken part in a pairing by then, by starting rank; the first of them with a
    /// colour in that round gives it, reversed if an odd number of them come before.
    /// `None` when no colour has been written at all.
    pub fn first_colour_or_inferred(&self) -> Option<Colour> {
        if self.first_colour.is_some() {
            return self.first_colour;
        }
        let first_round = self
            .players
            .iter()
            .filter_map(|p| p.rounds.iter().position(|e| e.colour.is_some()))
            .min()?;
        let mut players: Vec<&TrfPlayer> = self.players.iter().collect();
        players.sort_by_key(|p| p.rank);
        players
            .into_iter()
            .filter(|p| {
                p.rounds
                    .iter()
                    .take(first_round + 1)
                    .any(RoundEntry::participated)
            })
            .enumerate()
            .find_map(|(k, p)| {
                let c = p.rounds.get(first_round)?.colour?;
                Some(if k % 2 == 1 { c.opposite() } else { c })
            })
    }

    /// The number of rounds in the file: the longest list of rounds of any player.
    pub fn rounds_played(&self) -> u32 {
        self.players
            .iter()
            .map(|p| p.rounds.len() as u32)
            .max()
            .unwrap_or(0)
    }

    /// The file's text: the other lines, `XXR`, `XXC`, then the players by starting rank.
    pub fn write(&self) -> String {
        let mut out = String::new();
        for l in &self.other_lines {
            out.push_str(l);
            out.push('\n');
        }
        if let Some(n) = self.total_rounds {
            let _ = writeln!(out, "XXR {n}");
        }
        match self.first_colour {
            Some(Colour::White) => out.push_str("XXC white1\n"),
            Some(Colour::Black) => out.push_str("XXC black1\n"),
            None => {}
        }
        let mut players: Vec<&TrfPlayer> = self.players.iter().collect();
        players.sort_by_key(|p| p.rank);
        for p in players {
            let name: String = p.name.chars().take(33).collect();
            let rating = if p.rating == 0 {
                String::new()
            } else {
                p.rating.to_string()
            };
            let mut l = format!(
                "001 {:>4}      {:<33} {:>4} {:>3} {:>11} {:>10} {:>4} {:>4}",
                p.rank,
                name,
                rating,
                "",
                "",
                "",
                points_text(p.points),
                p.place.map_or_else(String::new, |r| r.to_string())
            );
            for e in &p.rounds {
                let _ = write!(l, "  {}", describe(e));
            }
            out.push_str(l.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Points as TRF writes them: one decimal.
fn points_text(p: Points) -> String {
    let q = p.in_quarters();
    format!("{}.{}", q / 4, (q % 4) * 25 / 10)
}

/// An entry's 8 columns: `oooo c r`.
fn describe(e: &RoundEntry) -> String {
    if *e == RoundEntry::NOT_PAIRED {
        return " ".repeat(8);
    }
    format!(
        "{} {} {}",
        e.opponent
            .map_or_else(|| "0000".to_string(), |o| format!("{o:>4}")),
        e.colour.map_or('-', Colour::letter),
        e.code.letter()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four players, two rounds played of three: round 1 1-4 1-0 and 3-2 0-1; round 2 2-1
    /// drawn and 4 lost by forfeit to 3. Columns as TRF-16 places them.
    const FOUR: &str = "\
012 Test of four
XXR 3
XXC black1
001    1      Aoife                             1900                             1.5          4 w 1     2 b =
001    2      Brian                             1800                             1.5          3 b 1     1 w =
001    3      Ciara                             1700                             1.0          2 w 0     4 b +
001    4      Dara                                                               0.0          1 b 0     3 w -
";

    #[test]
    fn reads_players_rounds_xxr_and_xxc() {
        let t = Trf::parse(FOUR).unwrap();
        assert_eq!(t.total_rounds, Some(3));
        assert_eq!(t.first_colour, Some(Colour::Black));
        assert_eq!(t.other_lines, vec!["012 Test of four".to_string()]);
        assert_eq!(t.players.len(), 4);
        let a = &t.players[0];
        assert_eq!((a.rank, a.name.as_str(), a.rating), (1, "Aoife", 1900));
        assert_eq!(a.points, Points::halves(3));
        assert_eq!(
            a.rounds,
            vec![
                RoundEntry {
                    opponent: Some(4),
                    colour: Some(Colour::White),
                    code: Code::Win
                },
                RoundEntry {
                    opponent: Some(2),
                    colour: Some(Colour::Black),
                    code: Code::Draw
                }
            ]
        );
        assert!(a.rounds[0].played());
        let d = &t.players[3];
        assert_eq!(d.rating, 0);
        assert_eq!(d.rounds[1].code, Code::ForfeitLoss);
        assert!(!d.rounds[1].played());
        assert!(d.rounds[1].participated());
        assert_eq!(t.rounds_played(), 2);
    }

    #[test]
    fn writes_what_it_reads() {
        let t = Trf::parse(FOUR).unwrap();
        assert_eq!(t.write(), FOUR);
        assert_eq!(Trf::parse(&t.write()).unwrap(), t);
    }

    #[test]
    fn the_first_colour_is_inferred_without_xxc() {
        let mut t = Trf::parse(FOUR).unwrap();
        assert_eq!(t.first_colour_or_inferred(), Some(Colour::Black));
        t.first_colour = None;
        // Player 1 had White in round 1.
        assert_eq!(t.first_colour_or_inferred(), Some(Colour::White));
        let late = "\
XXR 3
001    1      A                                 2000                             0.0
001    2      B                                 1900                             1.0          3 b 1
001    3      C                                 1800                             0.0          2 w 0
";
        let t = Trf::parse(late).unwrap();
        // Only 2 and 3 took part in round 1; 2 is the first of them and had Black.
        assert_eq!(t.first_colour_or_inferred(), Some(Colour::Black));
        let bye_first = "\
XXR 3
001    1      A                                 2000                             1.0       0000 - U
001    2      B                                 1900                             1.0          3 b 1
001    3      C                                 1800                             0.0          2 w 0
";
        let t = Trf::parse(bye_first).unwrap();
        // 1 took part (the bye) without a colour; 2 comes second: Black reversed.
        assert_eq!(t.first_colour_or_inferred(), Some(Colour::White));
        let nothing = "XXR 3\n001    1      A                                 2000                             0.0\n";
        assert_eq!(
            Trf::parse(nothing).unwrap().first_colour_or_inferred(),
            None
        );
    }

    #[test]
    fn a_double_forfeit() {
        let text = "\
XXR 2
001    1      A                                 2000                             0.0          2 w -
001    2      B                                 1900                             0.0          1 b -
";
        let t = Trf::parse(text).unwrap();
        assert_eq!(t.players[1].rounds[0].code, Code::ForfeitLoss);
        assert_eq!(t.write(), text);
        let one_sided = text.replace("1 b -", "1 b 0");
        assert_eq!(
            Trf::parse(&one_sided).unwrap_err().line,
            2,
            "a forfeit loss against a played win does not agree"
        );
    }

    #[test]
    fn byes_late_joiners_and_carriage_returns() {
        let text = "\
XXR 3\r\
001    1      A                                 2000                             2.0       0000 - U     3 w 1\r\
001    2      B                                 1900                             0.5                 0000 - =\r\
001    3      C                                 1800                             1.0       0000 - +     1 b 0\r\
001    4      D                                 1700                             0.0       0000 - -  0000 - Z\r";
        let t = Trf::parse(text).unwrap();
        let a = &t.players[0];
        assert_eq!(a.rounds[0].code, Code::PairingBye);
        assert!(a.rounds[0].participated() && !a.rounds[0].played());
        let b = &t.players[1];
        // Not paired in round 1 (joined late), a half-point bye in round 2.
        assert_eq!(b.rounds[0], RoundEntry::NOT_PAIRED);
        assert_eq!(b.rounds[1].code, Code::Draw);
        assert_eq!(b.rounds[1].opponent, None);
        assert!(!b.rounds[1].participated());
        assert!(t.players[2].rounds[0].participated());
        assert!(!t.players[3].rounds[0].participated());
        assert_eq!(t.players[3].rounds[1].code, Code::ZeroBye);
        // Written back with LF line ends, blank rounds as blanks.
        let again = Trf::parse(&t.write()).unwrap();
        assert_eq!(again, t);
        assert!(t
            .write()
            .contains("001    2      B                                 1900                             0.5                 0000 - =\n"));
    }

    /// Replaces line `n` (1-based) of FOUR.
    fn four_with(n: usize, line: &str) -> String {
        FOUR.lines()
            .enumerate()
            .map(|(i, l)| if i + 1 == n { line } else { l })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn error(text: &str) -> (usize, String) {
        let e = Trf::parse(text).unwrap_err();
        (e.line, e.to_string())
    }

    #[test]
    fn bad_files_name_the_line_and_the_problem() {
        let cases: Vec<(String, usize, &str)> = vec![
            (four_with(4, "001    1      Aoife    1900"), 4, "at least 84 characters"),
            (
                four_with(4, "001    x      Aoife                             1900                             1.5          4 w 1     2 b ="),
                4,
                "starting rank (columns 5-8) \"x\" is not a number",
            ),
            (
                four_with(4, "001    1      Aoife                             19x0                             1.5          4 w 1     2 b ="),
                4,
                "rating",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.7          4 w 1     2 b ="),
                4,
                "not a whole or half number",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.5          4 x 1     2 b ="),
                4,
                "round 1's colour is 'x'",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.5          4 w 1     2 b ?"),
                4,
                "round 2's result is '?'",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.5          4 w 1     1 b ="),
                4,
                "paired with themselves",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.5          4 w 1     9 b ="),
                4,
                "opponent 9 has no 001 line",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.5          4 w 1     2 w ="),
                4,
                "round 2: player 1 has 2 w =, but player 2 (line 5) has    1 w =",
            ),
            (
                four_with(5, "001    1      Brian                             1800                             1.5          3 b 1"),
                5,
                "starting rank 1 is already used on line 4",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.5          4 w 1     2 b =  x"),
                4,
                "unexpected text at column 112",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.5          4 w 1     2 - U"),
                4,
                "a bye ('U') has no opponent and no colour",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.5       0000 - 1     2 b ="),
                4,
                "round 1: the result '1' is a game, which needs an opponent",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             1.5          4 - 1     2 b ="),
                4,
                "a game against 4 needs a colour",
            ),
            (
                four_with(4, "001    1      Aoife                             1900                             2.0          4 w 1     2 b ="),
                4,
                "the points (columns 81-84) say 2, but player 1's results add up to 1.5",
            ),
            (four_with(2, "XXR three"), 2, "XXR needs the number of rounds"),
            (four_with(2, "XXR 1"), 2, "XXR says 1 rounds, but 2 have been played"),
            (four_with(3, "XXC rank"), 3, "\"rank\" is not supported"),
            (four_with(1, "BBW  2.0"), 1, "only the standard points"),
            (four_with(1, "XXA    1  1.0"), 1, "accelerations"),
        ];
        for (text, line, words) in cases {
            let (l, message) = error(&text);
            assert_eq!(l, line, "{message}");
            assert!(message.contains(words), "{message:?} lacks {words:?}");
            assert!(message.starts_with(&format!("line {line}: ")));
        }
    }
}
