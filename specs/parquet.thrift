// SPDX-License-Identifier: Apache-2.0
//
// The part of a Parquet file's Thrift metadata that page reads (fileindex/arrow/parquet_pages.py) read or
// write back: the footer (FileMetaData) down to each column chunk's offsets, the offset and column indexes, and
// page headers. Field ids and types are Parquet's, from
// https://github.com/apache/parquet-format/blob/24102ed5c56e51b610a4897e5f79e76e43732d1d/src/main/thrift/parquet.thrift
// Fields left out are skipped when read. What is written back into a copied page's file is declared whole
// (a schema element with its logical type, a column order) and checked to encode to the footer's own bytes.
// Enumerations are plain i32 (the values the module compares are named in it). No default values: a field
// absent on the wire stays None, so nothing is written back that the file did not hold.
//
// Compiled by tools/regenerate.py (Apache Thrift's compiler, --gen py:slots) into fileindex/generated/parquet_thrift.

namespace py parquet_thrift

// ---- the schema, written back whole for the copied column

struct StringType {}
struct UUIDType {}
struct MapType {}
struct ListType {}
struct EnumType {}
struct DateType {}
struct Float16Type {}
struct NullType {}
struct JsonType {}
struct BsonType {}
struct FileType {}

struct DecimalType {
  1: required i32 scale
  2: required i32 precision
}

struct MilliSeconds {}
struct MicroSeconds {}
struct NanoSeconds {}

union TimeUnit {
  1: MilliSeconds MILLIS
  2: MicroSeconds MICROS
  3: NanoSeconds NANOS
}

struct TimestampType {
  1: required bool isAdjustedToUTC
  2: required TimeUnit unit
}

struct TimeType {
  1: required bool isAdjustedToUTC
  2: required TimeUnit unit
}

struct IntType {
  1: required i8 bitWidth
  2: required bool isSigned
}

struct VariantType {
  1: optional i8 specification_version
}

struct GeometryType {
  1: optional string crs
}

struct GeographyType {
  1: optional string crs
  2: optional i32 algorithm
}

union LogicalType {
  1: StringType STRING
  2: MapType MAP
  3: ListType LIST
  4: EnumType ENUM
  5: DecimalType DECIMAL
  6: DateType DATE
  7: TimeType TIME
  8: TimestampType TIMESTAMP
  10: IntType INTEGER
  11: NullType UNKNOWN
  12: JsonType JSON
  13: BsonType BSON
  14: UUIDType UUID
  15: Float16Type FLOAT16
  16: VariantType VARIANT
  17: GeometryType GEOMETRY
  18: GeographyType GEOGRAPHY
  19: FileType FILE
}

struct SchemaElement {
  1: optional i32 type
  2: optional i32 type_length
  3: optional i32 repetition_type
  4: required string name
  5: optional i32 num_children
  6: optional i32 converted_type
  7: optional i32 scale
  8: optional i32 precision
  9: optional i32 field_id
  10: optional LogicalType logicalType
}

struct TypeDefinedOrder {}
struct IEEE754TotalOrder {}
struct Int96TimestampOrder {}

union ColumnOrder {
  1: TypeDefinedOrder TYPE_ORDER
  2: IEEE754TotalOrder IEEE_754_TOTAL_ORDER
  3: Int96TimestampOrder INT96_TIMESTAMP_ORDER
}

// ---- where a column chunk's pages are

struct PageEncodingStats {
  1: required i32 page_type
  2: required i32 encoding
  3: required i32 count
}

struct ColumnMetaData {
  1: required i32 type
  2: required list<i32> encodings
  3: required list<string> path_in_schema
  4: required i32 codec
  5: required i64 num_values
  6: required i64 total_uncompressed_size
  7: required i64 total_compressed_size
  9: required i64 data_page_offset
  10: optional i64 index_page_offset
  11: optional i64 dictionary_page_offset
  13: optional list<PageEncodingStats> encoding_stats
}

struct EncryptionWithFooterKey {}

struct EncryptionWithColumnKey {
  1: required list<string> path_in_schema
  2: optional binary key_metadata
}

union ColumnCryptoMetaData {
  1: EncryptionWithFooterKey ENCRYPTION_WITH_FOOTER_KEY
  2: EncryptionWithColumnKey ENCRYPTION_WITH_COLUMN_KEY
}

struct ColumnChunk {
  1: optional string file_path
  2: required i64 file_offset
  3: optional ColumnMetaData meta_data
  4: optional i64 offset_index_offset
  5: optional i32 offset_index_length
  6: optional i64 column_index_offset
  7: optional i32 column_index_length
  8: optional ColumnCryptoMetaData crypto_metadata
  9: optional binary encrypted_column_metadata
}

struct RowGroup {
  1: required list<ColumnChunk> columns
  2: required i64 total_byte_size
  3: required i64 num_rows
  5: optional i64 file_offset
  6: optional i64 total_compressed_size
}

struct FileMetaData {
  1: required i32 version
  2: required list<SchemaElement> schema
  3: required i64 num_rows
  4: required list<RowGroup> row_groups
  6: optional string created_by
  7: optional list<ColumnOrder> column_orders
}

// ---- the offset index (a column chunk's page locations)

struct PageLocation {
  1: required i64 offset
  2: required i32 compressed_page_size  // the page's header included
  3: required i64 first_row_index
}

struct OffsetIndex {
  1: required list<PageLocation> page_locations
}

// ---- the column index (each page's bounds, as the writer claims them: read like a row group's statistics)

struct ColumnIndex {
  1: required list<bool> null_pages
  2: required list<binary> min_values  // plain-encoded, as a page's statistics
  3: required list<binary> max_values
  4: required i32 boundary_order
  5: optional list<i64> null_counts
}

// ---- page headers, checked against the offset index before a page is copied

struct DataPageHeader {
  1: required i32 num_values  // with nulls: a flat column's rows
  2: required i32 encoding
  3: required i32 definition_level_encoding
  4: required i32 repetition_level_encoding
}

struct DictionaryPageHeader {
  1: required i32 num_values
  2: required i32 encoding
  3: optional bool is_sorted
}

struct DataPageHeaderV2 {
  1: required i32 num_values
  2: required i32 num_nulls
  3: required i32 num_rows
  4: required i32 encoding
  5: required i32 definition_levels_byte_length
  6: required i32 repetition_levels_byte_length
  7: optional bool is_compressed
}

struct PageHeader {
  1: required i32 type
  2: required i32 uncompressed_page_size
  3: required i32 compressed_page_size  // the page's bytes after its header
  4: optional i32 crc
  5: optional DataPageHeader data_page_header
  7: optional DictionaryPageHeader dictionary_page_header
  8: optional DataPageHeaderV2 data_page_header_v2
}
