package systemcatalog

// Logical replication: streamdb has no publications or subscriptions in
// Postgres's sense, and these catalogs are empty.

var (
	pgPublication          = newTable(nsPgCatalog, "pg_publication", 6104, "r", nil, `oid oid, pubname name, pubowner oid, puballtables boolean, pubinsert boolean, pubupdate boolean, pubdelete boolean, pubtruncate boolean, pubviaroot boolean`)
	pgPublicationRel       = newTable(nsPgCatalog, "pg_publication_rel", 6106, "r", nil, `oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector`)
	pgPublicationNamespace = newTable(nsPgCatalog, "pg_publication_namespace", 6237, "r", nil, `oid oid, pnpubid oid, pnnspid oid`)
	pgSubscription         = newTable(nsPgCatalog, "pg_subscription", 6100, "r", nil, `oid oid, subdbid oid, subskiplsn text, subname name, subowner oid, subenabled boolean, subbinary boolean, substream boolean, subtwophasestate "char", subdisableonerr boolean, subconninfo text, subslotname name, subsynccommit text, subpublications text[]`)
)
