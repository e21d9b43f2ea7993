package systemcatalog

// Full text search: streamdb has no text search configurations,
// dictionaries, parsers or templates, and these catalogs are empty.

var (
	pgTSConfig   = newTable(nsPgCatalog, "pg_ts_config", 3602, "r", nil, `oid oid, cfgname name, cfgnamespace oid, cfgowner oid, cfgparser oid`)
	pgTSDict     = newTable(nsPgCatalog, "pg_ts_dict", 3600, "r", nil, `oid oid, dictname name, dictnamespace oid, dictowner oid, dicttemplate oid, dictinitoption text`)
	pgTSParser   = newTable(nsPgCatalog, "pg_ts_parser", 3601, "r", nil, `oid oid, prsname name, prsnamespace oid, prsstart regproc, prstoken regproc, prsend regproc, prsheadline regproc, prslextype regproc`)
	pgTSTemplate = newTable(nsPgCatalog, "pg_ts_template", 3764, "r", nil, `oid oid, tmplname name, tmplnamespace oid, tmplinit regproc, tmpllexize regproc`)
)
