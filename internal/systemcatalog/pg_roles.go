package systemcatalog

import "github.com/streamdb/streamdb/internal/types"

// The roles: the session's user is the one real role (OID 10), a
// superuser that owns every object; pg_database_owner owns the public
// schema, as in Postgres. There are no memberships, per-role settings,
// default or initial privileges.

var (
	pgRoles         = newTable(nsPgCatalog, "pg_roles", 12000, "v", roleRows, `rolname name, rolsuper boolean, rolinherit boolean, rolcreaterole boolean, rolcreatedb boolean, rolcanlogin boolean, rolreplication boolean, rolconnlimit integer, rolpassword text, rolvaliduntil timestamp with time zone, rolbypassrls boolean, rolconfig text[], oid oid`)
	pgUser          = newTable(nsPgCatalog, "pg_user", 12014, "v", userRows, `usename name, usesysid oid, usecreatedb boolean, usesuper boolean, userepl boolean, usebypassrls boolean, passwd text, valuntil timestamp with time zone, useconfig text[]`)
	pgAuthMembers   = newTable(nsPgCatalog, "pg_auth_members", 1261, "r", nil, `roleid oid, member oid, grantor oid, admin_option boolean`)
	pgDbRoleSetting = newTable(nsPgCatalog, "pg_db_role_setting", 2964, "r", nil, `setdatabase oid, setrole oid, setconfig text[]`)
	pgDefaultACL    = newTable(nsPgCatalog, "pg_default_acl", 826, "r", nil, `oid oid, defaclrole oid, defaclnamespace oid, defaclobjtype "char", defaclacl aclitem[]`)
	pgInitPrivs     = newTable(nsPgCatalog, "pg_init_privs", 3394, "r", nil, `objoid oid, classoid oid, objsubid integer, privtype "char", initprivs aclitem[]`)
)

// roleName names a role, "" for an unknown OID.
func (id Identity) roleName(oid int64) string {
	switch oid {
	case roleSuper:
		return id.User
	case roleDBOwner:
		return "pg_database_owner"
	}
	return ""
}

func roleRows(v *view) [][]types.Datum {
	return [][]types.Datum{
		{v.id.User, true, true, true, true, true, true, int64(-1), "********", nil, true, nil, int64(roleSuper)},
		{"pg_database_owner", false, true, false, false, false, false, int64(-1), "********", nil, false, nil, int64(roleDBOwner)},
	}
}

func userRows(v *view) [][]types.Datum {
	return [][]types.Datum{{v.id.User, int64(roleSuper), true, true, true, true, "********", nil, nil}}
}
