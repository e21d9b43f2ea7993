SELECT pg_catalog.pg_get_viewdef('16393'::pg_catalog.oid, true);
