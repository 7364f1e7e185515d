//! Parquet output through the `parquet` crate's low-level writer (no arrow):
//! one row group, uncompressed, every column OPTIONAL (nulls = missing).
//! u64 columns are INT64 with the unsigned INTEGER(64) logical type, strings
//! BYTE_ARRAY with the STRING logical type.

use crate::table::{ColumnData, Table};
use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::io::Write;
use std::sync::Arc;

fn split<T: Clone>(v: &[Option<T>]) -> (Vec<T>, Vec<i16>) {
    let vals = v.iter().flatten().cloned().collect();
    let defs = v.iter().map(|x| x.is_some() as i16).collect();
    (vals, defs)
}

/// Write `t` as a Parquet file.
pub fn write_parquet<W: Write + Send>(t: &Table, w: W) -> Result<(), String> {
    let e = |x: parquet::errors::ParquetError| format!("parquet: table `{}`: {x}", t.name);
    let mut fields = Vec::new();
    for c in t.columns() {
        let (phys, logical) = match c.data {
            ColumnData::U64(_) => (
                PhysicalType::INT64,
                Some(LogicalType::Integer(parquet::basic::IntType {
                    bit_width: 64,
                    is_signed: false,
                })),
            ),
            ColumnData::I64(_) => (PhysicalType::INT64, None),
            ColumnData::F64(_) => (PhysicalType::DOUBLE, None),
            ColumnData::Str(_) => (PhysicalType::BYTE_ARRAY, Some(LogicalType::String)),
            ColumnData::Bool(_) => (PhysicalType::BOOLEAN, None),
        };
        let f = Type::primitive_type_builder(&c.name, phys)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
            .build()
            .map_err(e)?;
        fields.push(Arc::new(f));
    }
    let schema = Arc::new(
        Type::group_type_builder("schema")
            .with_fields(fields)
            .build()
            .map_err(e)?,
    );
    let props = Arc::new(
        WriterProperties::builder()
            .set_created_by("mptlab".into())
            .build(),
    );
    let mut fw = SerializedFileWriter::new(w, schema, props).map_err(e)?;
    let mut rg = fw.next_row_group().map_err(e)?;
    for c in t.columns() {
        let mut cw = rg
            .next_column()
            .map_err(e)?
            .expect("one writer per schema column");
        match &c.data {
            ColumnData::U64(v) => {
                let (vals, defs) = split(v);
                let vals: Vec<i64> = vals.into_iter().map(|x| x as i64).collect();
                cw.typed::<Int64Type>()
                    .write_batch(&vals, Some(&defs), None)
                    .map_err(e)?;
            }
            ColumnData::I64(v) => {
                let (vals, defs) = split(v);
                cw.typed::<Int64Type>()
                    .write_batch(&vals, Some(&defs), None)
                    .map_err(e)?;
            }
            ColumnData::F64(v) => {
                let (vals, defs) = split(v);
                cw.typed::<DoubleType>()
                    .write_batch(&vals, Some(&defs), None)
                    .map_err(e)?;
            }
            ColumnData::Bool(v) => {
                let (vals, defs) = split(v);
                cw.typed::<BoolType>()
                    .write_batch(&vals, Some(&defs), None)
                    .map_err(e)?;
            }
            ColumnData::Str(v) => {
                let (vals, defs) = split(v);
                let vals: Vec<ByteArray> = vals
                    .into_iter()
                    .map(|s| ByteArray::from(s.into_bytes()))
                    .collect();
                cw.typed::<ByteArrayType>()
                    .write_batch(&vals, Some(&defs), None)
                    .map_err(e)?;
            }
        }
        cw.close().map_err(e)?;
    }
    rg.close().map_err(e)?;
    fw.close().map_err(e)?;
    Ok(())
}
