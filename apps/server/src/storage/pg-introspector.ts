/**
 * Kysely's PostgreSQL introspection, kept to the connection's own schemas: those of its
 * search_path (DATABASE_SCHEMA; by default "$user" if it exists, and public), where its
 * unqualified names resolve. Kysely's own reads the tables of every schema in the
 * database, calling has_schema_privilege() on each schema by name: a schema dropped
 * meanwhile by another tenant of the database (another deployment, a test) makes that
 * read fail with "schema … does not exist", and with it the Migrator, which introspects
 * to find its bookkeeping tables at every start. Reading only our schemas is also what the
 * Migrator means (a kysely_migration table of another schema is not ours) and costs the
 * same whatever else the database holds.
 */
import {
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type Kysely,
  PostgresDialect,
  PostgresIntrospector,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE } from 'kysely/migration';

interface ColumnRow {
  table: string;
  table_type: string;
  schema: string;
  column: string;
  type: string;
  type_schema: string;
  not_null: boolean;
  has_default: boolean;
  auto_incrementing: boolean;
  comment: string | null;
}

class SchemaIntrospector implements DatabaseIntrospector {
  private readonly db: Kysely<unknown>;
  private readonly all: PostgresIntrospector;

  constructor(db: Kysely<unknown>) {
    this.db = db;
    this.all = new PostgresIntrospector(db);
  }

  /** Schema names alone: nothing that can fail on a schema dropped meanwhile. */
  getSchemas(): Promise<SchemaMetadata[]> {
    return this.all.getSchemas();
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    // Functions in the select list run only for the rows kept: our schemas'.
    const { rows } = await sql<ColumnRow>`
      select c.relname as table, c.relkind as table_type, ns.nspname as schema,
             a.attname as column, typ.typname as type, tns.nspname as type_schema,
             a.attnotnull as not_null, a.atthasdef as has_default,
             -- An identity column, or a serial one (its default takes the next value of a
             -- sequence). Looked up by oid, not by a name that may be gone; and no subquery
             -- per column, whose cost on a catalog's stale statistics set off JIT
             -- compilation (two seconds a read).
             (a.attidentity <> '' or coalesce(pg_get_expr(ad.adbin, ad.adrelid) like 'nextval(%', false))
               as auto_incrementing,
             col_description(c.oid, a.attnum) as comment
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
        join pg_catalog.pg_attribute a on a.attrelid = c.oid
        join pg_catalog.pg_type typ on typ.oid = a.atttypid
        join pg_catalog.pg_namespace tns on tns.oid = typ.typnamespace
        left join pg_catalog.pg_attrdef ad on ad.adrelid = c.oid and ad.adnum = a.attnum
       where ns.nspname = any(current_schemas(false))
         and c.relkind in ('r', 'v', 'p', 'f')
         and a.attnum > 0 and not a.attisdropped
       order by ns.nspname, c.relname, a.attnum`.execute(this.db);
    const internal = new Set([DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE]);
    const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>();
    for (const r of rows) {
      if (!options.withInternalKyselyTables && internal.has(r.table)) continue;
      const name = `${r.schema}.${r.table}`;
      let t = tables.get(name);
      if (!t) {
        t = {
          name: r.table,
          schema: r.schema,
          isView: r.table_type === 'v',
          isForeign: r.table_type === 'f',
          columns: [],
        };
        tables.set(name, t);
      }
      t.columns.push({
        name: r.column,
        dataType: r.type,
        dataTypeSchema: r.type_schema,
        isNullable: !r.not_null,
        hasDefaultValue: r.has_default,
        isAutoIncrementing: r.auto_incrementing,
        ...(r.comment === null ? {} : { comment: r.comment }),
      });
    }
    return [...tables.values()];
  }
}

/** PostgresDialect whose introspection reads the connection's own schemas only (see above). */
export class SchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SchemaIntrospector(db);
  }
}
