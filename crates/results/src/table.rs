//! A small typed columnar table.

use std::fmt;

/// Column types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    U64,
    I64,
    F64,
    Str,
    Bool,
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ColumnType::U64 => "u64",
            ColumnType::I64 => "i64",
            ColumnType::F64 => "f64",
            ColumnType::Str => "string",
            ColumnType::Bool => "bool",
        })
    }
}

/// Column values; `None` is a missing value (empty CSV field, Parquet null).
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    U64(Vec<Option<u64>>),
    I64(Vec<Option<i64>>),
    F64(Vec<Option<f64>>),
    Str(Vec<Option<String>>),
    Bool(Vec<Option<bool>>),
}

impl ColumnData {
    pub fn new(ty: ColumnType) -> Self {
        match ty {
            ColumnType::U64 => ColumnData::U64(Vec::new()),
            ColumnType::I64 => ColumnData::I64(Vec::new()),
            ColumnType::F64 => ColumnData::F64(Vec::new()),
            ColumnType::Str => ColumnData::Str(Vec::new()),
            ColumnType::Bool => ColumnData::Bool(Vec::new()),
        }
    }
    pub fn ty(&self) -> ColumnType {
        match self {
            ColumnData::U64(_) => ColumnType::U64,
            ColumnData::I64(_) => ColumnType::I64,
            ColumnData::F64(_) => ColumnType::F64,
            ColumnData::Str(_) => ColumnType::Str,
            ColumnData::Bool(_) => ColumnType::Bool,
        }
    }
    pub fn len(&self) -> usize {
        match self {
            ColumnData::U64(v) => v.len(),
            ColumnData::I64(v) => v.len(),
            ColumnData::F64(v) => v.len(),
            ColumnData::Str(v) => v.len(),
            ColumnData::Bool(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Value at `row` (panics when out of range).
    pub fn get(&self, row: usize) -> Value {
        match self {
            ColumnData::U64(v) => v[row].map_or(Value::Null, Value::U64),
            ColumnData::I64(v) => v[row].map_or(Value::Null, Value::I64),
            ColumnData::F64(v) => v[row].map_or(Value::Null, Value::F64),
            ColumnData::Str(v) => v[row].clone().map_or(Value::Null, Value::Str),
            ColumnData::Bool(v) => v[row].map_or(Value::Null, Value::Bool),
        }
    }
    /// Append a value, converting numbers losslessly where possible
    /// (u64 <-> i64 when in range; integers into f64 columns).
    fn push(&mut self, v: Value) -> Result<(), Value> {
        match (self, v) {
            (ColumnData::U64(c), Value::Null) => c.push(None),
            (ColumnData::I64(c), Value::Null) => c.push(None),
            (ColumnData::F64(c), Value::Null) => c.push(None),
            (ColumnData::Str(c), Value::Null) => c.push(None),
            (ColumnData::Bool(c), Value::Null) => c.push(None),
            (ColumnData::U64(c), Value::U64(x)) => c.push(Some(x)),
            (ColumnData::U64(c), Value::I64(x)) if x >= 0 => c.push(Some(x as u64)),
            (ColumnData::I64(c), Value::I64(x)) => c.push(Some(x)),
            (ColumnData::I64(c), Value::U64(x)) if x <= i64::MAX as u64 => c.push(Some(x as i64)),
            (ColumnData::F64(c), Value::F64(x)) => c.push(Some(x)),
            (ColumnData::F64(c), Value::U64(x)) => c.push(Some(x as f64)),
            (ColumnData::F64(c), Value::I64(x)) => c.push(Some(x as f64)),
            (ColumnData::Str(c), Value::Str(x)) => c.push(Some(x)),
            (ColumnData::Bool(c), Value::Bool(x)) => c.push(Some(x)),
            (_, v) => return Err(v),
        }
        Ok(())
    }
    fn extend(&mut self, o: &ColumnData) {
        match (self, o) {
            (ColumnData::U64(a), ColumnData::U64(b)) => a.extend_from_slice(b),
            (ColumnData::I64(a), ColumnData::I64(b)) => a.extend_from_slice(b),
            (ColumnData::F64(a), ColumnData::F64(b)) => a.extend_from_slice(b),
            (ColumnData::Str(a), ColumnData::Str(b)) => a.extend_from_slice(b),
            (ColumnData::Bool(a), ColumnData::Bool(b)) => a.extend_from_slice(b),
            _ => unreachable!("types checked by the caller"),
        }
    }
}

/// One cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
    Bool(bool),
}

impl Value {
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::U64(v) => Some(v as f64),
            Value::I64(v) => Some(v as f64),
            Value::F64(v) => Some(v),
            _ => None,
        }
    }
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::U64(_) => "u64",
            Value::I64(_) => "i64",
            Value::F64(_) => "f64",
            Value::Str(_) => "string",
            Value::Bool(_) => "bool",
        }
    }
}

macro_rules! from_num {
    ($($t:ty => $v:ident as $c:ty),*) => {$(
        impl From<$t> for Value { fn from(x: $t) -> Value { Value::$v(x as $c) } }
    )*};
}
from_num!(u64 => U64 as u64, u32 => U64 as u64, u16 => U64 as u64, u8 => U64 as u64, usize => U64 as u64,
          i64 => I64 as i64, i32 => I64 as i64, f64 => F64 as f64, f32 => F64 as f64);
impl From<bool> for Value {
    fn from(x: bool) -> Value {
        Value::Bool(x)
    }
}
impl From<&str> for Value {
    fn from(x: &str) -> Value {
        Value::Str(x.to_string())
    }
}
impl From<String> for Value {
    fn from(x: String) -> Value {
        Value::Str(x)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(x: Option<T>) -> Value {
        x.map_or(Value::Null, Into::into)
    }
}

/// Build a row for [`Table::push_row`]: `row![flow, msg_id, 1200u64, None::<f64>]`.
#[macro_export]
macro_rules! row {
    ($($v:expr),* $(,)?) => { vec![$($crate::Value::from($v)),*] };
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub data: ColumnData,
}

/// Errors from building or combining tables.
#[derive(Clone, Debug, PartialEq)]
pub struct TableError(pub String);

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for TableError {}

/// A named table of typed columns of equal length.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: String,
    columns: Vec<Column>,
}

impl Table {
    pub fn new(name: impl Into<String>) -> Table {
        Table {
            name: name.into(),
            columns: Vec::new(),
        }
    }

    /// An empty table with the given columns.
    pub fn with_schema(name: impl Into<String>, schema: &[(&str, ColumnType)]) -> Table {
        let mut t = Table::new(name);
        for (n, ty) in schema {
            t.add_column(*n, *ty)
                .expect("schema column names are unique");
        }
        t
    }

    /// Room for `n` more rows in every column (appending them then moves
    /// no data).
    pub fn reserve(&mut self, n: usize) {
        for c in &mut self.columns {
            match &mut c.data {
                ColumnData::U64(v) => v.reserve(n),
                ColumnData::I64(v) => v.reserve(n),
                ColumnData::F64(v) => v.reserve(n),
                ColumnData::Str(v) => v.reserve(n),
                ColumnData::Bool(v) => v.reserve(n),
            }
        }
    }

    /// Add a column; existing rows get missing values in it.
    pub fn add_column(
        &mut self,
        name: impl Into<String>,
        ty: ColumnType,
    ) -> Result<(), TableError> {
        let name = name.into();
        if self.column(&name).is_some() {
            return Err(TableError(format!(
                "table `{}`: duplicate column `{name}`",
                self.name
            )));
        }
        let mut data = ColumnData::new(ty);
        for _ in 0..self.num_rows() {
            data.push(Value::Null).unwrap();
        }
        self.columns.push(Column { name, data });
        Ok(())
    }

    pub fn num_rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.data.len())
    }
    pub fn num_columns(&self) -> usize {
        self.columns.len()
    }
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
    pub fn schema(&self) -> Vec<(String, ColumnType)> {
        self.columns
            .iter()
            .map(|c| (c.name.clone(), c.data.ty()))
            .collect()
    }
    /// Cell value by row and column name.
    pub fn get(&self, row: usize, column: &str) -> Option<Value> {
        let c = self.column(column)?;
        (row < c.data.len()).then(|| c.data.get(row))
    }
    /// A whole row.
    pub fn row(&self, row: usize) -> Vec<Value> {
        self.columns.iter().map(|c| c.data.get(row)).collect()
    }

    /// Append a row, one value per column in column order. On error the
    /// table is unchanged.
    pub fn push_row(&mut self, row: Vec<Value>) -> Result<(), TableError> {
        if row.len() != self.columns.len() {
            return Err(TableError(format!(
                "table `{}`: row has {} values, expected {} ({})",
                self.name,
                row.len(),
                self.columns.len(),
                self.columns
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        for (c, v) in self.columns.iter_mut().zip(&row) {
            if !c.data.accepts(v) {
                return Err(TableError(format!(
                    "table `{}`: column `{}` is {}, found {} value {v:?}",
                    self.name,
                    c.name,
                    c.data.ty(),
                    v.kind()
                )));
            }
        }
        for (c, v) in self.columns.iter_mut().zip(row) {
            c.data.push(v).expect("checked above");
        }
        Ok(())
    }

    /// Append a row given as (column, value) pairs; columns not named get a
    /// missing value. Unknown column names are errors.
    pub fn push_named(&mut self, cells: &[(&str, Value)]) -> Result<(), TableError> {
        let mut row = vec![Value::Null; self.columns.len()];
        for (n, v) in cells {
            let i = self
                .columns
                .iter()
                .position(|c| c.name == *n)
                .ok_or_else(|| TableError(format!("table `{}`: no column `{n}`", self.name)))?;
            row[i] = v.clone();
        }
        self.push_row(row)
    }

    /// Append all rows of `other`, which must have the same schema.
    pub fn append(&mut self, other: &Table) -> Result<(), TableError> {
        if self.schema() != other.schema() {
            return Err(TableError(format!(
                "table `{}`: cannot append rows with schema {:?} to schema {:?}",
                self.name,
                other.schema(),
                self.schema()
            )));
        }
        for (a, b) in self.columns.iter_mut().zip(&other.columns) {
            a.data.extend(&b.data);
        }
        Ok(())
    }

    /// A table from whole columns (used to read persisted runs back); the
    /// columns must have equal lengths and distinct names.
    pub fn from_columns(
        name: impl Into<String>,
        columns: Vec<Column>,
    ) -> Result<Table, TableError> {
        let mut t = Table::new(name);
        let n = columns.first().map_or(0, |c| c.data.len());
        for c in columns {
            if c.data.len() != n {
                return Err(TableError(format!(
                    "table `{}`: column `{}` has {} values, expected {n}",
                    t.name,
                    c.name,
                    c.data.len()
                )));
            }
            if t.column(&c.name).is_some() {
                return Err(TableError(format!(
                    "table `{}`: duplicate column `{}`",
                    t.name, c.name
                )));
            }
            t.columns.push(c);
        }
        Ok(t)
    }

    /// A copy with leading constant columns (e.g. `run`, `seed`) added.
    pub fn with_leading(&self, lead: &[(&str, Value, ColumnType)]) -> Result<Table, TableError> {
        let mut t = Table::new(self.name.clone());
        for (n, _, ty) in lead {
            if self.column(n).is_some() {
                return Err(TableError(format!(
                    "table `{}` already has a column `{n}`",
                    self.name
                )));
            }
            t.add_column(*n, *ty)?;
        }
        let n = self.num_rows();
        for (i, (_, v, _)) in lead.iter().enumerate() {
            for _ in 0..n {
                t.columns[i]
                    .data
                    .push(v.clone())
                    .map_err(|v| TableError(format!("bad value {v:?}")))?;
            }
        }
        t.columns.extend(self.columns.iter().cloned());
        Ok(t)
    }
}

impl ColumnData {
    /// Whether `push(v)` would succeed (same conversions as `push`).
    fn accepts(&self, v: &Value) -> bool {
        matches!(
            (self, v),
            (_, Value::Null)
                | (ColumnData::U64(_), Value::U64(_))
                | (ColumnData::I64(_), Value::I64(_))
                | (
                    ColumnData::F64(_),
                    Value::F64(_) | Value::U64(_) | Value::I64(_)
                )
                | (ColumnData::Str(_), Value::Str(_))
                | (ColumnData::Bool(_), Value::Bool(_))
        ) || matches!((self, v), (ColumnData::U64(_), Value::I64(x)) if *x >= 0)
            || matches!((self, v), (ColumnData::I64(_), Value::U64(x)) if *x <= i64::MAX as u64)
    }
}
