package engine

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
)

// The pg_catalog and information_schema relations: system relations
// (catalog.KindSystem) whose rows are computed from the live catalog and
// the session at each scan, with the columns Postgres 15 gives them, so
// that clients' catalog queries (psql's \d commands and tab completion,
// drivers, GUI tools) work. Catalogs of objects streamdb does not have
// (triggers, policies, publications, inheritance ...) exist and are
// empty. pg_proc, pg_aggregate, pg_operator, pg_cast and pg_description
// list the built-in functions, aggregates, operators and casts streamdb
// has, as PostgreSQL 15 has them (pgproc.go, pgaggregate.go,
// pgoperator.go).
//
// Object identifiers: a stored relation's OID is its catalog id plus
// firstUserOID (stable across restarts, as ids are never reused); the
// index behind a table's primary key and its constraint get the
// relation's OID with indexOIDBit or constraintOIDBit set. Types,
// built-in functions, operators and casts have their Postgres OIDs; system relations and namespaces have fixed OIDs
// (Postgres's own for the catalogs it has). All user objects are in the
// public schema and owned by the session's user (role OID 10).

const (
	firstUserOID     = 16384
	indexOIDBit      = 1 << 30
	constraintOIDBit = 1 << 29

	nsPgCatalog = 11
	nsPublic    = 2200
	nsInfo      = 13207
	nsStreamdb  = 16383

	roleSuper   = 10
	roleDBOwner = 6171

	amHeap  = 2
	amBtree = 403

	collDefault = 100
	databaseOID = 16384
)

// namespaces lists the schemas, by OID.
var namespaces = []struct {
	oid   int64
	name  string
	owner int64
}{
	{nsPgCatalog, "pg_catalog", roleSuper},
	{nsPublic, "public", roleDBOwner},
	{nsInfo, "information_schema", roleSuper},
	{nsStreamdb, "streamdb_catalog", roleSuper},
}

// pgTable is one pg_catalog or information_schema relation.
type pgTable struct {
	ns   int64
	name string
	oid  int64
	kind string // relkind: "r" (catalog) or "v" (view)
	cols string // "name type, ..." as Postgres's format_type prints them
	rows func(v *catalogView) [][]types.Datum
	rel  *catalog.Relation
}

// pgTables are the system relations besides streamdb_catalog's.
var pgTables = []*pgTable{
	{nsPgCatalog, "pg_class", 1259, "r", `oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, relam oid, relfilenode oid, reltablespace oid, relpages integer, reltuples real, relallvisible integer, reltoastrelid oid, relhasindex boolean, relisshared boolean, relpersistence "char", relkind "char", relnatts smallint, relchecks smallint, relhasrules boolean, relhastriggers boolean, relhassubclass boolean, relrowsecurity boolean, relforcerowsecurity boolean, relispopulated boolean, relreplident "char", relispartition boolean, relrewrite oid, relfrozenxid xid, relminmxid xid, relacl aclitem[], reloptions text[], relpartbound pg_node_tree`, classRows, nil},
	{nsPgCatalog, "pg_namespace", 2615, "r", `oid oid, nspname name, nspowner oid, nspacl aclitem[]`, namespaceRows, nil},
	{nsPgCatalog, "pg_attribute", 1249, "r", `attrelid oid, attname name, atttypid oid, attstattarget integer, attlen smallint, attnum smallint, attndims integer, attcacheoff integer, atttypmod integer, attbyval boolean, attalign "char", attstorage "char", attcompression "char", attnotnull boolean, atthasdef boolean, atthasmissing boolean, attidentity "char", attgenerated "char", attisdropped boolean, attislocal boolean, attinhcount integer, attcollation oid, attacl aclitem[], attoptions text[], attfdwoptions text[], attmissingval anyarray`, attributeRows, nil},
	{nsPgCatalog, "pg_type", 1247, "r", `oid oid, typname name, typnamespace oid, typowner oid, typlen smallint, typbyval boolean, typtype "char", typcategory "char", typispreferred boolean, typisdefined boolean, typdelim "char", typrelid oid, typsubscript regproc, typelem oid, typarray oid, typinput regproc, typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, typmodout regproc, typanalyze regproc, typalign "char", typstorage "char", typnotnull boolean, typbasetype oid, typtypmod integer, typndims integer, typcollation oid, typdefaultbin pg_node_tree, typdefault text, typacl aclitem[]`, typeRows, nil},
	{nsPgCatalog, "pg_database", 1262, "r", `oid oid, datname name, datdba oid, encoding integer, datlocprovider "char", datistemplate boolean, datallowconn boolean, datconnlimit integer, datfrozenxid xid, datminmxid xid, dattablespace oid, datcollate text, datctype text, daticulocale text, datcollversion text, datacl aclitem[]`, databaseRows, nil},
	{nsPgCatalog, "pg_index", 2610, "r", `indexrelid oid, indrelid oid, indnatts smallint, indnkeyatts smallint, indisunique boolean, indnullsnotdistinct boolean, indisprimary boolean, indisexclusion boolean, indimmediate boolean, indisclustered boolean, indisvalid boolean, indcheckxmin boolean, indisready boolean, indislive boolean, indisreplident boolean, indkey int2vector, indcollation oidvector, indclass oidvector, indoption int2vector, indexprs pg_node_tree, indpred pg_node_tree`, indexRows, nil},
	{nsPgCatalog, "pg_constraint", 2606, "r", `oid oid, conname name, connamespace oid, contype "char", condeferrable boolean, condeferred boolean, convalidated boolean, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, confupdtype "char", confdeltype "char", confmatchtype "char", conislocal boolean, coninhcount integer, connoinherit boolean, conkey smallint[], confkey smallint[], conpfeqop oid[], conppeqop oid[], conffeqop oid[], confdelsetcols smallint[], conexclop oid[], conbin pg_node_tree`, constraintRows, nil},
	{nsPgCatalog, "pg_am", 2601, "r", `oid oid, amname name, amhandler regproc, amtype "char"`, amRows, nil},
	{nsPgCatalog, "pg_roles", 12000, "v", `rolname name, rolsuper boolean, rolinherit boolean, rolcreaterole boolean, rolcreatedb boolean, rolcanlogin boolean, rolreplication boolean, rolconnlimit integer, rolpassword text, rolvaliduntil timestamp with time zone, rolbypassrls boolean, rolconfig text[], oid oid`, roleRows, nil},
	{nsPgCatalog, "pg_user", 12014, "v", `usename name, usesysid oid, usecreatedb boolean, usesuper boolean, userepl boolean, usebypassrls boolean, passwd text, valuntil timestamp with time zone, useconfig text[]`, userRows, nil},
	{nsPgCatalog, "pg_auth_members", 1261, "r", `roleid oid, member oid, grantor oid, admin_option boolean`, nil, nil},
	{nsPgCatalog, "pg_settings", 12104, "v", `name text, setting text, unit text, category text, short_desc text, extra_desc text, context text, vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, reset_val text, sourcefile text, sourceline integer, pending_restart boolean`, settingRows, nil},
	{nsPgCatalog, "pg_tables", 12033, "v", `schemaname name, tablename name, tableowner name, tablespace name, hasindexes boolean, hasrules boolean, hastriggers boolean, rowsecurity boolean`, tablesViewRows, nil},
	{nsPgCatalog, "pg_matviews", 12038, "v", `schemaname name, matviewname name, matviewowner name, tablespace name, hasindexes boolean, ispopulated boolean, definition text`, matviewRows, nil},
	{nsPgCatalog, "pg_views", 12028, "v", `schemaname name, viewname name, viewowner name, definition text`, nil, nil},
	{nsPgCatalog, "pg_indexes", 12043, "v", `schemaname name, tablename name, indexname name, tablespace name, indexdef text`, indexesViewRows, nil},
	{nsPgCatalog, "pg_collation", 3456, "r", `oid oid, collname name, collnamespace oid, collowner oid, collprovider "char", collisdeterministic boolean, collencoding integer, collcollate text, collctype text, colliculocale text, collversion text`, collationRows, nil},
	{nsPgCatalog, "pg_tablespace", 1213, "r", `oid oid, spcname name, spcowner oid, spcacl aclitem[], spcoptions text[]`, tablespaceRows, nil},
	{nsPgCatalog, "pg_description", 2609, "r", `objoid oid, classoid oid, objsubid integer, description text`, descriptionRows, nil},
	{nsPgCatalog, "pg_shdescription", 2396, "r", `objoid oid, classoid oid, description text`, nil, nil},
	{nsPgCatalog, "pg_inherits", 2611, "r", `inhrelid oid, inhparent oid, inhseqno integer, inhdetachpending boolean`, nil, nil},
	{nsPgCatalog, "pg_attrdef", 2604, "r", `oid oid, adrelid oid, adnum smallint, adbin pg_node_tree`, nil, nil},
	{nsPgCatalog, "pg_policy", 3256, "r", `oid oid, polname name, polrelid oid, polcmd "char", polpermissive boolean, polroles oid[], polqual pg_node_tree, polwithcheck pg_node_tree`, nil, nil},
	{nsPgCatalog, "pg_statistic_ext", 3381, "r", `oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, stxstattarget integer, stxkeys int2vector, stxkind "char"[], stxexprs pg_node_tree`, nil, nil},
	{nsPgCatalog, "pg_publication", 6104, "r", `oid oid, pubname name, pubowner oid, puballtables boolean, pubinsert boolean, pubupdate boolean, pubdelete boolean, pubtruncate boolean, pubviaroot boolean`, nil, nil},
	{nsPgCatalog, "pg_publication_rel", 6106, "r", `oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector`, nil, nil},
	{nsPgCatalog, "pg_publication_namespace", 6237, "r", `oid oid, pnpubid oid, pnnspid oid`, nil, nil},
	{nsPgCatalog, "pg_trigger", 2620, "r", `oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype smallint, tgenabled "char", tgisinternal boolean, tgconstrrelid oid, tgconstrindid oid, tgconstraint oid, tgdeferrable boolean, tginitdeferred boolean, tgnargs smallint, tgattr int2vector, tgargs bytea, tgqual pg_node_tree, tgoldtable name, tgnewtable name`, nil, nil},
	{nsPgCatalog, "pg_rewrite", 2618, "r", `oid oid, rulename name, ev_class oid, ev_type "char", ev_enabled "char", is_instead boolean, ev_qual pg_node_tree, ev_action pg_node_tree`, nil, nil},
	{nsPgCatalog, "pg_proc", 1255, "r", `oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost real, prorows real, provariadic oid, prosupport regproc, prokind "char", prosecdef boolean, proleakproof boolean, proisstrict boolean, proretset boolean, provolatile "char", proparallel "char", pronargs smallint, pronargdefaults smallint, prorettype oid, proargtypes oidvector, proallargtypes oid[], proargmodes "char"[], proargnames text[], proargdefaults pg_node_tree, protrftypes oid[], prosrc text, probin text, prosqlbody pg_node_tree, proconfig text[], proacl aclitem[]`, procRows, nil},
	{nsPgCatalog, "pg_extension", 3079, "r", `oid oid, extname name, extowner oid, extnamespace oid, extrelocatable boolean, extversion text, extconfig oid[], extcondition text[]`, nil, nil},
	{nsPgCatalog, "pg_sequence", 2224, "r", `seqrelid oid, seqtypid oid, seqstart bigint, seqincrement bigint, seqmax bigint, seqmin bigint, seqcache bigint, seqcycle boolean`, nil, nil},
	{nsPgCatalog, "pg_enum", 3501, "r", `oid oid, enumtypid oid, enumsortorder real, enumlabel name`, nil, nil},
	{nsPgCatalog, "pg_range", 3541, "r", `rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, rngsubopc oid, rngcanonical regproc, rngsubdiff regproc`, nil, nil},
	{nsPgCatalog, "pg_foreign_table", 3118, "r", `ftrelid oid, ftserver oid, ftoptions text[]`, foreignTableRows, nil},
	{nsPgCatalog, "pg_partitioned_table", 3350, "r", `partrelid oid, partstrat "char", partnatts smallint, partdefid oid, partattrs int2vector, partclass oidvector, partcollation oidvector, partexprs pg_node_tree`, nil, nil},
	{nsPgCatalog, "pg_event_trigger", 3466, "r", `oid oid, evtname name, evtevent name, evtowner oid, evtfoid oid, evtenabled "char", evttags text[]`, nil, nil},
	{nsPgCatalog, "pg_language", 2612, "r", `oid oid, lanname name, lanowner oid, lanispl boolean, lanpltrusted boolean, lanplcallfoid oid, laninline oid, lanvalidator oid, lanacl aclitem[]`, languageRows, nil},
	{nsPgCatalog, "pg_aggregate", 2600, "r", `aggfnoid regproc, aggkind "char", aggnumdirectargs smallint, aggtransfn regproc, aggfinalfn regproc, aggcombinefn regproc, aggserialfn regproc, aggdeserialfn regproc, aggmtransfn regproc, aggminvtransfn regproc, aggmfinalfn regproc, aggfinalextra boolean, aggmfinalextra boolean, aggfinalmodify "char", aggmfinalmodify "char", aggsortop oid, aggtranstype oid, aggtransspace integer, aggmtranstype oid, aggmtransspace integer, agginitval text, aggminitval text`, aggregateRows, nil},
	{nsPgCatalog, "pg_operator", 2617, "r", `oid oid, oprname name, oprnamespace oid, oprowner oid, oprkind "char", oprcanmerge boolean, oprcanhash boolean, oprleft oid, oprright oid, oprresult oid, oprcom oid, oprnegate oid, oprcode regproc, oprrest regproc, oprjoin regproc`, operatorRows, nil},
	{nsPgCatalog, "pg_opclass", 2616, "r", `oid oid, opcmethod oid, opcname name, opcnamespace oid, opcowner oid, opcfamily oid, opcintype oid, opcdefault boolean, opckeytype oid`, nil, nil},
	{nsPgCatalog, "pg_opfamily", 2753, "r", `oid oid, opfmethod oid, opfname name, opfnamespace oid, opfowner oid`, nil, nil},
	{nsPgCatalog, "pg_amop", 2602, "r", `oid oid, amopfamily oid, amoplefttype oid, amoprighttype oid, amopstrategy smallint, amoppurpose "char", amopopr oid, amopmethod oid, amopsortfamily oid`, nil, nil},
	{nsPgCatalog, "pg_amproc", 2603, "r", `oid oid, amprocfamily oid, amproclefttype oid, amprocrighttype oid, amprocnum smallint, amproc regproc`, nil, nil},
	{nsPgCatalog, "pg_conversion", 2607, "r", `oid oid, conname name, connamespace oid, conowner oid, conforencoding integer, contoencoding integer, conproc regproc, condefault boolean`, nil, nil},
	{nsPgCatalog, "pg_db_role_setting", 2964, "r", `setdatabase oid, setrole oid, setconfig text[]`, nil, nil},
	{nsPgCatalog, "pg_default_acl", 826, "r", `oid oid, defaclrole oid, defaclnamespace oid, defaclobjtype "char", defaclacl aclitem[]`, nil, nil},
	{nsPgCatalog, "pg_init_privs", 3394, "r", `objoid oid, classoid oid, objsubid integer, privtype "char", initprivs aclitem[]`, nil, nil},
	{nsPgCatalog, "pg_seclabel", 3596, "r", `objoid oid, classoid oid, objsubid integer, provider text, label text`, nil, nil},
	{nsPgCatalog, "pg_largeobject_metadata", 2995, "r", `oid oid, lomowner oid, lomacl aclitem[]`, nil, nil},
	{nsPgCatalog, "pg_foreign_data_wrapper", 2328, "r", `oid oid, fdwname name, fdwowner oid, fdwhandler oid, fdwvalidator oid, fdwacl aclitem[], fdwoptions text[]`, foreignWrapperRows, nil},
	{nsPgCatalog, "pg_foreign_server", 1417, "r", `oid oid, srvname name, srvowner oid, srvfdw oid, srvtype text, srvversion text, srvacl aclitem[], srvoptions text[]`, foreignServerRows, nil},
	{nsPgCatalog, "pg_user_mappings", 12327, "v", `umid oid, srvid oid, srvname name, umuser oid, usename name, umoptions text[]`, nil, nil},
	{nsPgCatalog, "pg_subscription", 6100, "r", `oid oid, subdbid oid, subskiplsn text, subname name, subowner oid, subenabled boolean, subbinary boolean, substream boolean, subtwophasestate "char", subdisableonerr boolean, subconninfo text, subslotname name, subsynccommit text, subpublications text[]`, nil, nil},
	{nsPgCatalog, "pg_transform", 3576, "r", `oid oid, trftype oid, trflang oid, trffromsql regproc, trftosql regproc`, nil, nil},
	{nsPgCatalog, "pg_ts_config", 3602, "r", `oid oid, cfgname name, cfgnamespace oid, cfgowner oid, cfgparser oid`, nil, nil},
	{nsPgCatalog, "pg_ts_dict", 3600, "r", `oid oid, dictname name, dictnamespace oid, dictowner oid, dicttemplate oid, dictinitoption text`, nil, nil},
	{nsPgCatalog, "pg_ts_parser", 3601, "r", `oid oid, prsname name, prsnamespace oid, prsstart regproc, prstoken regproc, prsend regproc, prsheadline regproc, prslextype regproc`, nil, nil},
	{nsPgCatalog, "pg_ts_template", 3764, "r", `oid oid, tmplname name, tmplnamespace oid, tmplinit regproc, tmpllexize regproc`, nil, nil},
	{nsPgCatalog, "pg_policies", 12018, "v", `schemaname name, tablename name, policyname name, permissive text, roles name[], cmd text, qual text, with_check text`, nil, nil},
	{nsPgCatalog, "pg_rules", 12023, "v", `schemaname name, tablename name, rulename name, definition text`, nil, nil},
	{nsPgCatalog, "pg_sequences", 12048, "v", `schemaname name, sequencename name, sequenceowner name, data_type regtype, start_value bigint, min_value bigint, max_value bigint, increment_by bigint, cycle boolean, cache_size bigint, last_value bigint`, nil, nil},
	{nsPgCatalog, "pg_stats", 12053, "v", `schemaname name, tablename name, attname name, inherited boolean, null_frac real, avg_width integer, n_distinct real, most_common_vals anyarray, most_common_freqs real[], histogram_bounds anyarray, correlation real, most_common_elems anyarray, most_common_elem_freqs real[], elem_count_histogram real[]`, nil, nil},
	{nsInfo, "tables", 13425, "v", `table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, table_type character_data, self_referencing_column_name sql_identifier, reference_generation character_data, user_defined_type_catalog sql_identifier, user_defined_type_schema sql_identifier, user_defined_type_name sql_identifier, is_insertable_into yes_or_no, is_typed yes_or_no, commit_action character_data`, infoTableRows, nil},
	{nsInfo, "columns", 13295, "v", `table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, column_name sql_identifier, ordinal_position cardinal_number, column_default character_data, is_nullable yes_or_no, data_type character_data, character_maximum_length cardinal_number, character_octet_length cardinal_number, numeric_precision cardinal_number, numeric_precision_radix cardinal_number, numeric_scale cardinal_number, datetime_precision cardinal_number, interval_type character_data, interval_precision cardinal_number, character_set_catalog sql_identifier, character_set_schema sql_identifier, character_set_name sql_identifier, collation_catalog sql_identifier, collation_schema sql_identifier, collation_name sql_identifier, domain_catalog sql_identifier, domain_schema sql_identifier, domain_name sql_identifier, udt_catalog sql_identifier, udt_schema sql_identifier, udt_name sql_identifier, scope_catalog sql_identifier, scope_schema sql_identifier, scope_name sql_identifier, maximum_cardinality cardinal_number, dtd_identifier sql_identifier, is_self_referencing yes_or_no, is_identity yes_or_no, identity_generation character_data, identity_start character_data, identity_increment character_data, identity_maximum character_data, identity_minimum character_data, identity_cycle yes_or_no, is_generated character_data, generation_expression character_data, is_updatable yes_or_no`, infoColumnRows, nil},
	{nsInfo, "schemata", 13382, "v", `catalog_name sql_identifier, schema_name sql_identifier, schema_owner sql_identifier, default_character_set_catalog sql_identifier, default_character_set_schema sql_identifier, default_character_set_name sql_identifier, sql_path character_data`, infoSchemataRows, nil},
	{nsInfo, "views", 13483, "v", `table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, view_definition character_data, check_option character_data, is_updatable yes_or_no, is_insertable_into yes_or_no, is_trigger_updatable yes_or_no, is_trigger_deletable yes_or_no, is_trigger_insertable_into yes_or_no`, nil, nil},
	{nsPgCatalog, "pg_cast", 2605, "r", `oid oid, castsource oid, casttarget oid, castfunc oid, castcontext "char", castmethod "char"`, castRows, nil},
}

// pgTableIDBase starts the catalog ids of pgTables (after streamdb_catalog's).
const pgTableIDBase = systemIDBase + 16

// pgTablesByName and pgTablesByID index pgTables; built at init.
var (
	pgTablesByName = map[string]*pgTable{}
	pgTablesByID   = map[uint32]*pgTable{}
	pgTablesByOID  = map[int64]*pgTable{}
)

func init() {
	for i, t := range pgTables {
		t.rel = &catalog.Relation{ID: pgTableIDBase + uint32(i), Name: nsName(t.ns) + "." + t.name, Kind: catalog.KindSystem}
		for _, c := range strings.Split(t.cols, ", ") {
			name, typ, _ := strings.Cut(c, " ")
			t.rel.Columns = append(t.rel.Columns, catalog.Column{Name: name, Type: catalogColumnType(typ)})
		}
		// The system column every Postgres relation has.
		t.rel.Columns = append(t.rel.Columns, catalog.Column{Name: "tableoid", Type: types.Type{ID: types.IDOid}, Hidden: true})
		pgTablesByName[t.rel.Name] = t
		pgTablesByID[t.rel.ID] = t
		pgTablesByOID[t.oid] = t
	}
}

// catalogColumnType maps the type of a catalog column, as Postgres
// prints it, to the streamdb type that holds it: name, "char", xid and
// pg_node_tree are text; aclitem[] is text[]; int2vector and oidvector
// are vectors (types.VectorOf); the information_schema domains are text and integer.
func catalogColumnType(name string) types.Type {
	switch name {
	case "name", `"char"`, "pg_node_tree", "anyarray", "bytea", "sql_identifier", "character_data", "yes_or_no":
		return types.TText
	case "xid":
		return types.TInt64
	case "cardinal_number":
		return types.TInt32
	case "int2vector":
		return types.VectorOf(types.IDInt16)
	case "oidvector":
		return types.VectorOf(types.IDOid)
	case "aclitem[]", `"char"[]`:
		return types.ArrayOf(types.IDText)
	}
	if elem, ok := strings.CutSuffix(name, "[]"); ok {
		return types.ArrayOf(catalogColumnType(elem).ID)
	}
	id, ok := types.ExprTypeByName(name)
	if !ok {
		panic(fmt.Sprintf("streamdb: catalog column type %q", name))
	}
	return types.Type{ID: id}
}

func nsName(oid int64) string {
	for _, n := range namespaces {
		if n.oid == oid {
			return n.name
		}
	}
	return ""
}

func nsOID(name string) (int64, bool) {
	for _, n := range namespaces {
		if n.name == name {
			return n.oid, true
		}
	}
	return 0, false
}

// streamdbTableOIDBase numbers the streamdb_catalog relations' OIDs.
const streamdbTableOIDBase = 16000

// relOID returns the OID of a relation (stored or system).
func relOID(r *catalog.Relation) int64 {
	if t, ok := pgTablesByID[r.ID]; ok {
		return t.oid
	}
	if r.Kind == catalog.KindSystem {
		for i, name := range streamdbCatalogNames {
			if r.Name == name {
				return streamdbTableOIDBase + int64(i)
			}
		}
		return 0
	}
	return firstUserOID + int64(r.ID)
}

// relSchema returns the schema OID and the unqualified name of a relation.
func relSchema(r *catalog.Relation) (int64, string) {
	if schema, name, ok := strings.Cut(r.Name, "."); ok && r.Kind == catalog.KindSystem {
		ns, _ := nsOID(schema)
		return ns, name
	}
	return nsPublic, r.Name
}

// hasPKIndex reports whether r has a primary key index to show: a table
// with a declared primary key.
func hasPKIndex(r *catalog.Relation) bool {
	return r.Kind == catalog.KindTable && !r.RowID && len(r.PK) > 0
}

func pkIndexName(r *catalog.Relation) string { return r.Name + "_pkey" }
