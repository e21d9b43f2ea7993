package systemcatalog

// Rules, triggers and row security policies: streamdb has none, and
// these catalogs are empty. (A view is kept up to date by its stream
// job, not by a rewrite rule.)

var (
	pgRewrite      = newTable(nsPgCatalog, "pg_rewrite", 2618, "r", nil, `oid oid, rulename name, ev_class oid, ev_type "char", ev_enabled "char", is_instead boolean, ev_qual pg_node_tree, ev_action pg_node_tree`)
	pgTrigger      = newTable(nsPgCatalog, "pg_trigger", 2620, "r", nil, `oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype smallint, tgenabled "char", tgisinternal boolean, tgconstrrelid oid, tgconstrindid oid, tgconstraint oid, tgdeferrable boolean, tginitdeferred boolean, tgnargs smallint, tgattr int2vector, tgargs bytea, tgqual pg_node_tree, tgoldtable name, tgnewtable name`)
	pgEventTrigger = newTable(nsPgCatalog, "pg_event_trigger", 3466, "r", nil, `oid oid, evtname name, evtevent name, evtowner oid, evtfoid oid, evtenabled "char", evttags text[]`)
	pgPolicy       = newTable(nsPgCatalog, "pg_policy", 3256, "r", nil, `oid oid, polname name, polrelid oid, polcmd "char", polpermissive boolean, polroles oid[], polqual pg_node_tree, polwithcheck pg_node_tree`)
)
