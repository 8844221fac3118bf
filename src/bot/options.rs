//! Typed command options.
//!
//! Each option of the command table (`commands.rs`) names itself, describes itself and has a
//! type. The type decides everything else: how the option is offered (text, integer, yes/no or
//! a user; its list of choices), whether it is required (`Option<T>` and `bool` are optional)
//! and how a raw value is read into it ([`Param`]). Adapters hand raw [`Value`]s in, by option
//! name; the core only ever sees typed values.

use super::reply::{escape_markdown, User};
use super::time::TimeControl;
use crate::game::{Scoring, Variant};
use crate::store::{ChallengeId, FirstChoice, GameId, LadderId, LeagueId, TournamentId};

/// The options of `/challenge`, as its handler gets them: the lobby's, or the AI's when the
/// opponent is the bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeOptions {
    /// `None`: an open challenge, anyone but the challenger may accept.
    pub opponent: Option<User>,
    pub variant: Variant,
    pub scoring: Option<Scoring>,
    pub first: Option<FirstChoice>,
    pub days: Option<TimeControl>,
    /// A two-game match, each player starting one.
    pub is_match: bool,
    pub rated: Option<bool>,
}

/// How an option is entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Integer,
    Boolean,
    User,
}

/// A raw option value, as an adapter received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Text(String),
    Integer(i64),
    Boolean(bool),
    User(User),
}

/// One offered choice of an option: what the user sees and the value sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub label: String,
    pub value: String,
}

impl Choice {
    pub fn new(label: impl Into<String>, value: impl Into<String>) -> Choice {
        Choice {
            label: label.into(),
            value: value.into(),
        }
    }
}

/// One option of a command, as adapters offer it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub kind: Kind,
    pub required: bool,
    pub choices: Vec<Choice>,
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub max_length: Option<u16>,
    /// Values are suggested as the user types (Discord autocomplete).
    pub autocomplete: bool,
    /// In the console, the option takes the rest of the line (a move written with a space).
    pub rest: bool,
    /// Not offered as a slash-command option: set by a button, or typed in the console.
    pub hidden: bool,
}

impl OptionSpec {
    /// The option `name` of type `T`.
    pub fn of<T: Param>(name: &'static str, description: &'static str) -> OptionSpec {
        OptionSpec {
            name,
            description,
            kind: T::KIND,
            required: T::REQUIRED,
            choices: T::choices(),
            min: None,
            max: None,
            max_length: None,
            autocomplete: false,
            rest: false,
            hidden: false,
        }
    }
    pub fn min(mut self, n: i64) -> OptionSpec {
        self.min = Some(n);
        self
    }
    pub fn max(mut self, n: i64) -> OptionSpec {
        self.max = Some(n);
        self
    }
    pub fn max_length(mut self, n: u16) -> OptionSpec {
        self.max_length = Some(n);
        self
    }
    pub fn autocomplete(mut self) -> OptionSpec {
        self.autocomplete = true;
        self
    }
    pub fn rest(mut self) -> OptionSpec {
        self.rest = true;
        self
    }
    pub fn hidden(mut self) -> OptionSpec {
        self.hidden = true;
        self
    }

    /// `name` or `[name]`, as in usage lines.
    pub fn usage(&self) -> String {
        if self.required {
            self.name.to_string()
        } else {
            format!("[{}]", self.name)
        }
    }

    /// Checks a raw value against the kind and bounds (the checks Discord's client makes
    /// before sending, made again for every adapter).
    pub fn check(&self, v: &Value) -> Result<(), String> {
        let name = self.name;
        match (self.kind, v) {
            (Kind::Integer, Value::Integer(n)) => {
                let (lo, hi) = (self.min.unwrap_or(i64::MIN), self.max.unwrap_or(i64::MAX));
                if *n < lo || *n > hi {
                    return Err(match (self.min, self.max) {
                        (Some(lo), Some(hi)) => format!("`{name}` must be from {lo} to {hi}."),
                        (Some(lo), None) => format!("`{name}` must be at least {lo}."),
                        _ => format!("`{name}` must be at most {hi}."),
                    });
                }
                Ok(())
            }
            (Kind::Text, Value::Text(s)) => match self.max_length {
                Some(max) if s.chars().count() > usize::from(max) => {
                    Err(format!("`{name}` is too long: at most {max} characters."))
                }
                _ => Ok(()),
            },
            (Kind::Boolean, Value::Boolean(_)) | (Kind::User, Value::User(_)) => Ok(()),
            _ => Err(format!("`{name}` takes {}.", self.kind_text())),
        }
    }

    fn kind_text(&self) -> &'static str {
        match self.kind {
            Kind::Text => "text",
            Kind::Integer => "a whole number",
            Kind::Boolean => "yes or no",
            Kind::User => "a user",
        }
    }

    /// Reads console text into a value of this option's kind. A refusal is for the terminal:
    /// the text quoted as typed, no Markdown escapes.
    pub fn value_from_text(&self, text: &str) -> Result<Value, String> {
        let name = self.name;
        match self.kind {
            Kind::Text => Ok(Value::Text(text.to_string())),
            Kind::Integer => text
                .trim_start_matches('#')
                .parse()
                .map(Value::Integer)
                .map_err(|_| format!("'{text}' is not a number (`{name}`).")),
            Kind::Boolean => match text.to_ascii_lowercase().as_str() {
                "yes" | "true" | "on" | "y" => Ok(Value::Boolean(true)),
                "no" | "false" | "off" | "n" => Ok(Value::Boolean(false)),
                _ => Err(format!("`{name}` is yes or no, not '{text}'.")),
            },
            Kind::User => {
                let n = text.trim().trim_start_matches('@');
                Ok(Value::User(User::new(n.to_lowercase(), n)))
            }
        }
    }
}

/// The raw values of one invocation, by option name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Values(Vec<(String, Value)>);

impl Values {
    pub fn new() -> Values {
        Values::default()
    }
    /// Sets an option (a later value for the same name wins).
    pub fn set(&mut self, name: &str, v: Value) {
        self.0.retain(|(n, _)| n != name);
        self.0.push((name.to_string(), v));
    }
    pub fn with(mut self, name: &str, v: Value) -> Values {
        self.set(name, v);
        self
    }
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(n, _)| n.as_str())
    }
}

/// A type an option can have.
pub trait Param: Sized {
    const KIND: Kind;
    /// Whether the option must be given (false for `Option<T>` and `bool`).
    const REQUIRED: bool = true;
    /// The choices offered, if the option is a choice.
    fn choices() -> Vec<Choice> {
        Vec::new()
    }
    /// Reads the value (`None`: not given) of the option `name`.
    fn read(v: Option<&Value>, name: &str) -> Result<Self, String>;
}

/// The value of a required option, or a message naming it.
fn given<'v>(v: Option<&'v Value>, name: &str) -> Result<&'v Value, String> {
    v.ok_or_else(|| format!("`{name}` is required."))
}

fn text<'v>(v: Option<&'v Value>, name: &str) -> Result<&'v str, String> {
    match given(v, name)? {
        Value::Text(s) => Ok(s),
        _ => Err(format!("`{name}` takes text.")),
    }
}

fn integer(v: Option<&Value>, name: &str) -> Result<i64, String> {
    match given(v, name)? {
        Value::Integer(n) => Ok(*n),
        _ => Err(format!("`{name}` takes a whole number.")),
    }
}

impl<T: Param> Param for Option<T> {
    const KIND: Kind = T::KIND;
    const REQUIRED: bool = false;
    fn choices() -> Vec<Choice> {
        T::choices()
    }
    fn read(v: Option<&Value>, name: &str) -> Result<Option<T>, String> {
        v.map(|v| T::read(Some(v), name)).transpose()
    }
}

impl Param for bool {
    const KIND: Kind = Kind::Boolean;
    const REQUIRED: bool = false;
    fn read(v: Option<&Value>, name: &str) -> Result<bool, String> {
        match v {
            None => Ok(false),
            Some(Value::Boolean(b)) => Ok(*b),
            Some(_) => Err(format!("`{name}` is yes or no.")),
        }
    }
}

impl Param for String {
    const KIND: Kind = Kind::Text;
    fn read(v: Option<&Value>, name: &str) -> Result<String, String> {
        text(v, name).map(str::to_string)
    }
}

impl Param for i64 {
    const KIND: Kind = Kind::Integer;
    fn read(v: Option<&Value>, name: &str) -> Result<i64, String> {
        integer(v, name)
    }
}

impl Param for u32 {
    const KIND: Kind = Kind::Integer;
    fn read(v: Option<&Value>, name: &str) -> Result<u32, String> {
        let n = integer(v, name)?;
        u32::try_from(n).map_err(|_| format!("`{name}` must be a number from 0 to {}.", u32::MAX))
    }
}

impl Param for GameId {
    const KIND: Kind = Kind::Integer;
    fn read(v: Option<&Value>, name: &str) -> Result<GameId, String> {
        match integer(v, name)? {
            n if n > 0 => Ok(GameId(n)),
            n => Err(format!(
                "'{n}' is not a game number: write it as #123 or 123."
            )),
        }
    }
}

/// Tournament and challenge numbers: whole numbers from 1 (the command declares the minimum).
macro_rules! number_params {
    ($($id:ident),*) => {$(
        impl Param for $id {
            const KIND: Kind = Kind::Integer;
            fn read(v: Option<&Value>, name: &str) -> Result<$id, String> {
                integer(v, name).map($id)
            }
        }
    )*};
}
number_params!(TournamentId, ChallengeId, LadderId, LeagueId);

impl Param for User {
    const KIND: Kind = Kind::User;
    fn read(v: Option<&Value>, name: &str) -> Result<User, String> {
        match given(v, name)? {
            Value::User(u) => Ok(u.clone()),
            _ => Err(format!("`{name}` takes a user.")),
        }
    }
}

/// A choice option: a closed set of values, each with an id and a label.
pub trait Choices: Sized + Copy + 'static {
    /// Every value, in the order offered.
    const ALL: &'static [Self];
    /// What is sent and typed.
    fn id(self) -> &'static str;
    /// What is shown in a list of choices.
    fn label(self) -> String {
        self.id().to_string()
    }
    /// Reads typed text; the default accepts the ids, ignoring case.
    fn parse_text(s: &str) -> Option<Self> {
        let t = s.trim().to_ascii_lowercase();
        Self::ALL.iter().copied().find(|c| c.id() == t)
    }
    /// The message for text that is none of the choices.
    fn unknown(s: &str, name: &str) -> String {
        format!(
            "'{}' is not a choice for `{name}`: choose {}.",
            escape_markdown(s),
            Self::expected()
        )
    }
    /// "a, b or c".
    fn expected() -> String {
        let ids: Vec<&str> = Self::ALL.iter().map(|c| c.id()).collect();
        match ids.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => ids.join(""),
        }
    }
}

/// Implements [`Param`] for a type with [`Choices`].
macro_rules! choice_param {
    ($t:ty) => {
        impl $crate::bot::options::Param for $t {
            const KIND: $crate::bot::options::Kind = $crate::bot::options::Kind::Text;
            fn choices() -> Vec<$crate::bot::options::Choice> {
                <$t as $crate::bot::options::Choices>::ALL
                    .iter()
                    .map(|c| {
                        $crate::bot::options::Choice::new(
                            $crate::bot::options::Choices::label(*c),
                            $crate::bot::options::Choices::id(*c),
                        )
                    })
                    .collect()
            }
            fn read(v: Option<&$crate::bot::options::Value>, name: &str) -> Result<$t, String> {
                let s = $crate::bot::options::read_text(v, name)?;
                <$t as $crate::bot::options::Choices>::parse_text(s)
                    .ok_or_else(|| <$t as $crate::bot::options::Choices>::unknown(s, name))
            }
        }
    };
}
pub(crate) use choice_param;

/// Implements [`Choices`] and [`Param`] for an enum from a list of its values, each with the
/// id that is sent and typed, the label shown in a list, and other words accepted when typed:
///
/// ```ignore
/// choices!(Reminders {
///     Channel => "channel", "in the game's channel";
///     Dm => "dm", "by direct message" | "direct";
///     Off => "off", "off";
/// });
/// ```
macro_rules! choices {
    ($t:ident { $( $v:ident => $id:literal, $label:literal $( | $alias:literal )* ; )* }) => {
        impl $crate::bot::options::Choices for $t {
            const ALL: &'static [$t] = &[ $( $t::$v ),* ];
            fn id(self) -> &'static str {
                match self { $( $t::$v => $id, )* }
            }
            fn label(self) -> String {
                match self { $( $t::$v => $label, )* }.to_string()
            }
            fn parse_text(s: &str) -> Option<$t> {
                match s.trim().to_ascii_lowercase().as_str() {
                    $( $id $( | $alias )* => Some($t::$v), )*
                    _ => None,
                }
            }
        }
        $crate::bot::options::choice_param!($t);
    };
}
pub(crate) use choices;

/// The message `T`'s own reader gives for text it refuses, as a sentence.
fn refusal<T: std::str::FromStr>(s: &str) -> String
where
    T::Err: std::fmt::Display,
{
    // The refusal quotes the text as typed ('…'): escaped, as text a user wrote.
    s.parse::<T>()
        .err()
        .map(|e| {
            format!("{e}.").replacen(&format!("'{s}'"), &format!("'{}'", escape_markdown(s)), 1)
        })
        .unwrap_or_default()
}

/// The text of an option (for [`choice_param!`]).
pub fn read_text<'v>(v: Option<&'v Value>, name: &str) -> Result<&'v str, String> {
    text(v, name)
}

impl Choices for Variant {
    const ALL: &'static [Variant] = &Variant::ALL;
    fn id(self) -> &'static str {
        Variant::id(self)
    }
    fn label(self) -> String {
        self.name().to_string()
    }
    fn parse_text(s: &str) -> Option<Variant> {
        s.parse().ok()
    }
    fn unknown(s: &str, _name: &str) -> String {
        refusal::<Variant>(s)
    }
}
choice_param!(Variant);

impl Choices for Scoring {
    const ALL: &'static [Scoring] = &[Scoring::Kingdoms, Scoring::Knots];
    fn id(self) -> &'static str {
        Scoring::id(self)
    }
    fn parse_text(s: &str) -> Option<Scoring> {
        s.parse().ok()
    }
    fn unknown(s: &str, _name: &str) -> String {
        refusal::<Scoring>(s)
    }
}
choice_param!(Scoring);

choices!(FirstChoice {
    Random => "random", "drawn by lot" | "lot";
    Challenger => "me", "me" | "challenger";
    Opponent => "opponent", "my opponent" | "them";
});

impl Choices for TimeControl {
    const ALL: &'static [TimeControl] = &TimeControl::ALL;
    fn id(self) -> &'static str {
        match self.days() {
            None => "none",
            Some(1) => "1",
            Some(2) => "2",
            Some(3) => "3",
            Some(5) => "5",
            Some(7) => "7",
            Some(_) => "14",
        }
    }
    fn label(self) -> String {
        match self.days() {
            None => "no clock".into(),
            Some(d) => format!("{d} day{}", if d == 1 { "" } else { "s" }),
        }
    }
    fn parse_text(s: &str) -> Option<TimeControl> {
        s.parse().ok()
    }
    fn unknown(s: &str, _name: &str) -> String {
        refusal::<TimeControl>(s)
    }
}
choice_param!(TimeControl);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_check_bounds_and_read_typed_values() {
        let count = OptionSpec::of::<Option<u32>>("count", "How many")
            .min(1)
            .max(14);
        assert!(!count.required);
        assert_eq!(count.usage(), "[count]");
        assert_eq!(count.check(&Value::Integer(3)), Ok(()));
        assert_eq!(
            count.check(&Value::Integer(15)),
            Err("`count` must be from 1 to 14.".into())
        );
        assert_eq!(
            count.check(&Value::Text("x".into())),
            Err("`count` takes a whole number.".into())
        );
        let words = OptionSpec::of::<String>("words", "Text").max_length(5);
        assert!(words.required);
        assert_eq!(
            words.check(&Value::Text("toolong".into())),
            Err("`words` is too long: at most 5 characters.".into())
        );
        let variant = OptionSpec::of::<Variant>("variant", "A game");
        assert_eq!(variant.choices.len(), 5);
        assert_eq!(variant.choices[4].value, "ard-ri");
        assert_eq!(
            <Variant as Param>::read(Some(&Value::Text("Ard-Ri".into())), "variant"),
            Ok(Variant::ArdRi)
        );
        assert_eq!(
            <Option<Scoring> as Param>::read(Some(&Value::Text("most".into())), "scoring"),
            Err("'most' is not a scoring: choose kingdoms or knots.".into())
        );
        assert_eq!(<Option<Scoring> as Param>::read(None, "scoring"), Ok(None));
        assert_eq!(<bool as Param>::read(None, "match"), Ok(false));
        assert_eq!(
            <Variant as Param>::read(None, "variant"),
            Err("`variant` is required.".into())
        );
        assert_eq!(
            OptionSpec::of::<User>("who", "").value_from_text("@Bob"),
            Ok(Value::User(User::new("bob", "Bob")))
        );
        assert_eq!(
            OptionSpec::of::<i64>("n", "").value_from_text("#12"),
            Ok(Value::Integer(12))
        );
        // The console shows these as typed, no Markdown escapes (issue 45: '\-x').
        assert_eq!(
            OptionSpec::of::<i64>("n", "").value_from_text("-x_1"),
            Err("'-x_1' is not a number (`n`).".into())
        );
        assert_eq!(
            OptionSpec::of::<bool>("rated", "").value_from_text("*maybe*"),
            Err("`rated` is yes or no, not '*maybe*'.".into())
        );
    }

    #[test]
    fn choices_list_and_read_aliases() {
        assert_eq!(FirstChoice::expected(), "random, me or opponent");
        let first = <FirstChoice as Param>::read(Some(&Value::Text("Them".into())), "first");
        assert_eq!(first, Ok(FirstChoice::Opponent));
        let bad = <FirstChoice as Param>::read(Some(&Value::Text("later".into())), "first");
        assert_eq!(
            bad,
            Err("'later' is not a choice for `first`: choose random, me or opponent.".into())
        );
    }
}
