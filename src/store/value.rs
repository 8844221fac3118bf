//! The values that cross between the store and its database, whichever backend it is: a
//! parameter is turned into a [`ValueRef`] ([`ToValue`]) and a column is read from a [`Value`]
//! ([`FromValue`]). Both backends speak these five kinds (SQLite's storage classes), so the
//! domain modules bind and read the same way on SQLite and on PostgreSQL.
//!
//! On PostgreSQL every integer column is a `BIGINT`, a boolean is stored as 0 or 1 as on SQLite,
//! a real is a `DOUBLE PRECISION`, text is `TEXT` and bytes are `BYTEA`; a parameter is written
//! as the type the server expects where it is placed (an integer as `INT4` in an `INT4`
//! position, say), so a query needs no casts for either backend.

/// A value read from a column.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// An integer (a boolean is 0 or 1).
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

/// A parameter's value, borrowed from what is bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueRef<'a> {
    /// SQL NULL.
    Null,
    /// An integer (a boolean is 0 or 1).
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(&'a str),
    /// Bytes.
    Blob(&'a [u8]),
}

impl Value {
    /// What kind of value it is, for messages about a column that holds the wrong kind.
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Int(_) => "an integer",
            Value::Real(_) => "a real number",
            Value::Text(_) => "text",
            Value::Blob(_) => "bytes",
        }
    }
}

/// A type bound as a query parameter.
pub trait ToValue {
    /// The value to bind.
    fn to_value(&self) -> ValueRef<'_>;
}

/// A type read from a column. The error says what the column held instead.
pub trait FromValue: Sized {
    /// Reads the value.
    fn from_value(v: Value) -> Result<Self, String>;
}

/// The parameters of one statement.
pub type Params<'a> = &'a [&'a dyn ToValue];

/// Builds [`Params`] from a list of values: `params![game_id, ply]` (in a module of `store/`).
macro_rules! params {
    () => { &[] as super::value::Params<'_> };
    ($($p:expr),+ $(,)?) => { &[$(&$p as &dyn super::value::ToValue),+] as super::value::Params<'_> };
}
pub(crate) use params;

fn wrong<T>(v: &Value, want: &str) -> Result<T, String> {
    Err(format!("{} where {want} belongs", v.kind()))
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> ValueRef<'_> {
        (**self).to_value()
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> ValueRef<'_> {
        match self {
            Some(v) => v.to_value(),
            None => ValueRef::Null,
        }
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: Value) -> Result<Self, String> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

/// Integer types, bound and read as 64-bit integers (a value out of the type's range is
/// reported as such).
macro_rules! integers {
    ($($t:ty),*) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> ValueRef<'_> {
                ValueRef::Int(i64::from(*self))
            }
        }
        impl FromValue for $t {
            fn from_value(v: Value) -> Result<$t, String> {
                match v {
                    Value::Int(i) => <$t>::try_from(i)
                        .map_err(|_| format!("{i}, out of range for {}", stringify!($t))),
                    v => wrong(&v, "an integer"),
                }
            }
        }
    )*};
}
integers!(i64, i32, u32, u8, u16);

impl ToValue for usize {
    fn to_value(&self) -> ValueRef<'_> {
        ValueRef::Int(i64::try_from(*self).unwrap_or(i64::MAX))
    }
}

impl ToValue for u64 {
    fn to_value(&self) -> ValueRef<'_> {
        ValueRef::Int(i64::try_from(*self).unwrap_or(i64::MAX))
    }
}

impl ToValue for bool {
    fn to_value(&self) -> ValueRef<'_> {
        ValueRef::Int(i64::from(*self))
    }
}

impl FromValue for bool {
    fn from_value(v: Value) -> Result<bool, String> {
        match v {
            Value::Int(i) => Ok(i != 0),
            v => wrong(&v, "a boolean (0 or 1)"),
        }
    }
}

impl ToValue for f64 {
    fn to_value(&self) -> ValueRef<'_> {
        ValueRef::Real(*self)
    }
}

impl FromValue for f64 {
    fn from_value(v: Value) -> Result<f64, String> {
        match v {
            Value::Real(r) => Ok(r),
            // SQLite hands back a REAL column's integral value as stored when it came in as one.
            Value::Int(i) => Ok(i as f64),
            v => wrong(&v, "a number"),
        }
    }
}

impl ToValue for str {
    fn to_value(&self) -> ValueRef<'_> {
        ValueRef::Text(self)
    }
}

impl ToValue for String {
    fn to_value(&self) -> ValueRef<'_> {
        ValueRef::Text(self)
    }
}

impl FromValue for String {
    fn from_value(v: Value) -> Result<String, String> {
        match v {
            Value::Text(s) => Ok(s),
            v => wrong(&v, "text"),
        }
    }
}

impl ToValue for [u8] {
    fn to_value(&self) -> ValueRef<'_> {
        ValueRef::Blob(self)
    }
}

impl ToValue for Vec<u8> {
    fn to_value(&self) -> ValueRef<'_> {
        ValueRef::Blob(self)
    }
}

impl FromValue for Vec<u8> {
    fn from_value(v: Value) -> Result<Vec<u8>, String> {
        match v {
            Value::Blob(b) => Ok(b),
            v => wrong(&v, "bytes"),
        }
    }
}

impl FromValue for Value {
    fn from_value(v: Value) -> Result<Value, String> {
        Ok(v)
    }
}

impl ToValue for Value {
    fn to_value(&self) -> ValueRef<'_> {
        match self {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::Int(*i),
            Value::Real(r) => ValueRef::Real(*r),
            Value::Text(s) => ValueRef::Text(s),
            Value::Blob(b) => ValueRef::Blob(b),
        }
    }
}

/// SQLite's side: a bound value, and a column's value.
pub(super) mod sqlite {
    use crate::store::value::{ToValue, Value, ValueRef};
    use rusqlite::types::{ToSqlOutput, ValueRef as Sql};

    /// A parameter as rusqlite binds it.
    pub(crate) struct Bind<'a>(pub &'a dyn ToValue);

    impl rusqlite::ToSql for Bind<'_> {
        fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
            Ok(ToSqlOutput::Borrowed(match self.0.to_value() {
                ValueRef::Null => Sql::Null,
                ValueRef::Int(i) => Sql::Integer(i),
                ValueRef::Real(r) => Sql::Real(r),
                ValueRef::Text(s) => Sql::Text(s.as_bytes()),
                ValueRef::Blob(b) => Sql::Blob(b),
            }))
        }
    }

    /// A column's value as read from SQLite (text that is not UTF-8 is an error).
    pub(crate) fn read(v: Sql<'_>) -> Result<Value, String> {
        Ok(match v {
            Sql::Null => Value::Null,
            Sql::Integer(i) => Value::Int(i),
            Sql::Real(r) => Value::Real(r),
            Sql::Text(t) => Value::Text(
                std::str::from_utf8(t)
                    .map_err(|e| format!("text that is not UTF-8 ({e})"))?
                    .to_string(),
            ),
            Sql::Blob(b) => Value::Blob(b.to_vec()),
        })
    }
}

/// PostgreSQL's side: a bound value written as the type the server expects, and a column's
/// value read from the types the store's schema uses.
pub(super) mod postgres {
    use crate::store::value::{ToValue, Value, ValueRef};
    use bytes::BytesMut;
    use postgres::types::{FromSql, IsNull, ToSql, Type};
    use std::error::Error;

    type BoxError = Box<dyn Error + Sync + Send>;

    /// A parameter as the postgres client binds it.
    #[derive(Debug)]
    pub(crate) struct Bind<'a>(pub ValueRef<'a>);

    impl<'a> Bind<'a> {
        /// The bound form of a parameter.
        pub(crate) fn of(p: &'a dyn ToValue) -> Bind<'a> {
            Bind(p.to_value())
        }
    }

    fn mismatch(v: &ValueRef<'_>, ty: &Type) -> BoxError {
        format!("cannot bind {v:?} where the database expects {ty}").into()
    }

    impl ToSql for Bind<'_> {
        fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
            match self.0 {
                ValueRef::Null => Ok(IsNull::Yes),
                ValueRef::Int(i) => match *ty {
                    Type::INT8 => i.to_sql(ty, out),
                    Type::INT4 => i32::try_from(i)?.to_sql(ty, out),
                    Type::INT2 => i16::try_from(i)?.to_sql(ty, out),
                    Type::BOOL => (i != 0).to_sql(ty, out),
                    Type::FLOAT8 => (i as f64).to_sql(ty, out),
                    Type::FLOAT4 => (i as f32).to_sql(ty, out),
                    Type::NUMERIC => Err(mismatch(&self.0, ty)),
                    Type::TEXT | Type::VARCHAR => i.to_string().to_sql(ty, out),
                    _ => Err(mismatch(&self.0, ty)),
                },
                ValueRef::Real(r) => match *ty {
                    Type::FLOAT8 => r.to_sql(ty, out),
                    Type::FLOAT4 => (r as f32).to_sql(ty, out),
                    _ => Err(mismatch(&self.0, ty)),
                },
                ValueRef::Text(s) => match *ty {
                    Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                        s.to_sql(&Type::TEXT, out)
                    }
                    _ => Err(mismatch(&self.0, ty)),
                },
                ValueRef::Blob(b) => match *ty {
                    Type::BYTEA => b.to_sql(ty, out),
                    _ => Err(mismatch(&self.0, ty)),
                },
            }
        }

        fn accepts(_: &Type) -> bool {
            true
        }

        postgres::types::to_sql_checked!();
    }

    /// A column's value as read from PostgreSQL.
    pub(crate) struct Read(pub Value);

    impl<'a> FromSql<'a> for Read {
        fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Read, BoxError> {
            Ok(Read(match *ty {
                Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
                Type::INT4 => Value::Int(i32::from_sql(ty, raw)?.into()),
                Type::INT2 => Value::Int(i16::from_sql(ty, raw)?.into()),
                Type::BOOL => Value::Int(bool::from_sql(ty, raw)?.into()),
                Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
                Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
                Type::BYTEA => Value::Blob(Vec::<u8>::from_sql(ty, raw)?),
                _ => Value::Text(String::from_sql(ty, raw)?),
            }))
        }

        fn from_sql_null(_: &Type) -> Result<Read, BoxError> {
            Ok(Read(Value::Null))
        }

        fn accepts(ty: &Type) -> bool {
            matches!(
                *ty,
                Type::INT8
                    | Type::INT4
                    | Type::INT2
                    | Type::BOOL
                    | Type::FLOAT8
                    | Type::FLOAT4
                    | Type::BYTEA
                    | Type::TEXT
                    | Type::VARCHAR
                    | Type::BPCHAR
                    | Type::NAME
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::store::value::*;

    #[test]
    fn values_read_back_as_their_types() {
        assert_eq!(u8::from_value(Value::Int(5)), Ok(5));
        assert!(u8::from_value(Value::Int(300))
            .unwrap_err()
            .contains("out of range"));
        assert_eq!(bool::from_value(Value::Int(1)), Ok(true));
        assert_eq!(f64::from_value(Value::Int(2)), Ok(2.0));
        assert_eq!(Option::<i64>::from_value(Value::Null), Ok(None));
        assert_eq!(
            String::from_value(Value::Int(3)).unwrap_err(),
            "an integer where text belongs"
        );
        assert_eq!(true.to_value(), ValueRef::Int(1));
        assert_eq!(None::<i64>.to_value(), ValueRef::Null);
        assert_eq!("x".to_value(), ValueRef::Text("x"));
    }
}
