package binder

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// The column and table rules of CREATE TABLE beyond types, keys and
// defaults, as PostgreSQL 15 has them:
//
//   - serial, bigserial, smallserial: an integer column, NOT NULL, whose
//     DEFAULT is nextval of a sequence the column owns (table_col_seq);
//   - GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY [(options)]: NOT NULL,
//     filled from an owned sequence; ALWAYS refuses a written value
//     (428C9) unless the INSERT says OVERRIDING SYSTEM VALUE;
//   - GENERATED ALWAYS AS (expr) STORED: computed from the row's other
//     columns on every INSERT, UPDATE and COPY; never written (428C9);
//     expr must be immutable and read no generated column (42P17);
//   - CHECK (expr), of a column or the table: a row that makes expr
//     false is refused (23514); NULL passes.
//
// The rules a table's rows obey at write time are bound again by every
// statement that writes (rowRules), from the texts the catalog keeps.

// serialType returns the integer type of a serial pseudo-type name.
func serialType(name string) (types.Type, bool) {
	switch name {
	case "serial", "serial4":
		return types.TInt32, true
	case "bigserial", "serial8":
		return types.TInt64, true
	case "smallserial", "serial2":
		return types.TInt16, true
	}
	return types.Type{}, false
}

// ownedSequence adds to ct the sequence that fills column d (serial or
// identity) of table name, and returns it.
func (b *binder) ownedSequence(ct *planner.CreateTable, name string, d *sql.ColumnDef, t types.Type) (*planner.CreateSequence, error) {
	o := d.IdentityOpts
	if o.Type != "" {
		return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "identity column type must be specified with the column, not with AS"), nil)
	}
	o.Type = seqTypeName(t)
	seq, _, err := ResolveSequence(o, nil)
	if err != nil {
		return nil, err
	}
	seq.OwnedColumn = d.Name
	seqName := o.SequenceName
	if seqName != "" {
		if seqName, err = b.creationName(seqName); err != nil {
			return nil, err
		}
	} else {
		seqName = b.chooseSequenceName(ct, name, d.Name)
	}
	cs := &planner.CreateSequence{Name: seqName, Seq: *seq}
	ct.Sequences = append(ct.Sequences, cs)
	return cs, nil
}

// chooseSequenceName is PostgreSQL's name for the sequence of column col
// of table: table_col_seq, numbered when taken.
func (b *binder) chooseSequenceName(ct *planner.CreateTable, table, col string) string {
	schema, own := catalog.SplitName(table)
	prefix := ""
	if table != own {
		prefix = schema + "."
	}
	base := own + "_" + col + "_seq"
	for n := 0; ; n++ {
		cand := base
		if n > 0 {
			cand = fmt.Sprintf("%s%d", base, n)
		}
		_, taken := b.cat.Relation(prefix + cand)
		for _, s := range ct.Sequences {
			taken = taken || s.Name == prefix+cand
		}
		if !taken {
			return prefix + cand
		}
	}
}

// sequenceRef is a sequence's name as a DEFAULT nextval('...'::regclass)
// writes it.
func sequenceRef(name string) string {
	schema, own := catalog.SplitName(name)
	ref := expr.QuoteIdent(own)
	if name != own && schema != "public" {
		ref = expr.QuoteIdent(schema) + "." + ref
	}
	return strings.ReplaceAll(ref, "'", "''")
}

// bindColumnKinds gives column col (of d) of table name its serial,
// identity or generated nature.
func (b *binder) bindColumnKinds(ct *planner.CreateTable, name string, d *sql.ColumnDef, col *catalog.Column, serial bool) error {
	_, own := catalog.SplitName(name)
	both := func(what string) error {
		return pgerr.New(pgerr.SyntaxError, "both %s specified for column %q of table %q", what, d.Name, own)
	}
	switch {
	case serial && d.Default != nil:
		return pgerr.New(pgerr.SyntaxError, "multiple default values specified for column %q of table %q", d.Name, own)
	case serial && d.Identity != "", d.Default != nil && d.Identity != "":
		return both("default and identity")
	case d.Generated != nil && d.Default != nil:
		return both("default and generation expression")
	case d.Generated != nil && (d.Identity != "" || serial):
		return both("identity and generation expression")
	}
	if d.Identity != "" && col.Type != types.TInt16 && col.Type != types.TInt32 && col.Type != types.TInt64 {
		return pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	if serial || d.Identity != "" {
		cs, err := b.ownedSequence(ct, name, d, col.Type)
		if err != nil {
			return err
		}
		col.NotNull = true
		if serial {
			col.Default = fmt.Sprintf("nextval('%s'::regclass)", sequenceRef(cs.Name))
		} else {
			col.Identity = d.Identity
		}
	}
	return nil
}

// tableScope is the scope of a CREATE TABLE's columns, for its
// generation expressions and CHECK constraints.
func tableScope(name string, cols []catalog.Column) *exprCtx {
	_, own := catalog.SplitName(name)
	r := &catalog.Relation{Name: name, Columns: cols}
	return &exprCtx{scope: scopeOf(relColumns(r, own), own)}
}

// bindGenerated checks and records the generation expressions of s.
func (b *binder) bindGenerated(s *sql.CreateTableStmt, name string, cols []catalog.Column) error {
	for i, d := range s.Columns {
		if d.Generated != nil {
			cols[i].Generated = d.GeneratedText
		}
	}
	for i, d := range s.Columns {
		if d.Generated == nil {
			continue
		}
		if hasSubquery(d.Generated) {
			return b.atNode(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in column generation expression"), d.Generated)
		}
		if _, err := b.generationExpr(name, cols, i, d.Generated); err != nil {
			return err
		}
	}
	return nil
}

// generationExpr binds the generation expression n of column i.
func (b *binder) generationExpr(name string, cols []catalog.Column, i int, n ast.ExprNode) (expr.Expr, error) {
	c := tableScope(name, cols)
	c.clause = "column generation expression"
	clock, sys := b.readsClock, b.sysFuncs
	b.readsClock, b.sysFuncs = false, false
	e, err := b.bindExpr(c, n)
	volatile := b.readsClock || b.sysFuncs
	b.readsClock, b.sysFuncs = clock || b.readsClock, sys || b.sysFuncs
	if err != nil {
		return nil, err
	}
	for _, ref := range expr.Columns(e) {
		if ref < len(cols) && (ref == i || cols[ref].Generated != "") {
			err := pgerr.New(InvalidObjectDefinition, "cannot use generated column %q in column generation expression", cols[ref].Name)
			err.Detail = "A generated column cannot reference another generated column."
			return nil, b.atNode(err, n)
		}
	}
	if volatile || expr.IsVolatile(e) || expr.ConvertsTimeTZByZoneName(e) {
		return nil, b.atNode(pgerr.New(InvalidObjectDefinition, "generation expression is not immutable"), n)
	}
	return b.castDefault(e, cols[i], n)
}

// InvalidObjectDefinition is the SQLSTATE of a generation expression
// that is not immutable or reads a generated column.
const InvalidObjectDefinition = "42P17"

// bindChecks checks the CHECK constraints of s and returns them named.
func (b *binder) bindChecks(s *sql.CreateTableStmt, name string, cols []catalog.Column) ([]catalog.Check, error) {
	var defs []sql.CheckDef
	for _, d := range s.Columns {
		defs = append(defs, d.Checks...)
	}
	defs = append(defs, s.Checks...)
	_, own := catalog.SplitName(name)
	var out []catalog.Check
	taken := map[string]bool{}
	for _, d := range defs {
		if d.Name != "" {
			if taken[d.Name] {
				return nil, pgerr.New(pgerr.DuplicateObject, "check constraint %q already exists", d.Name)
			}
			taken[d.Name] = true
		}
	}
	for _, d := range defs {
		e, err := b.checkExpr(name, cols, d.Expr)
		if err != nil {
			return nil, err
		}
		cname := d.Name
		if cname == "" {
			cname = chooseCheckName(own, cols, e, taken)
			taken[cname] = true
		}
		out = append(out, catalog.Check{Name: cname, Expr: d.Text})
	}
	return out, nil
}

// chooseCheckName is PostgreSQL's name for an unnamed CHECK constraint:
// table_column_check when it reads one column, table_check otherwise,
// numbered when taken.
func chooseCheckName(table string, cols []catalog.Column, e expr.Expr, taken map[string]bool) string {
	base := table + "_check"
	if refs := expr.Columns(e); len(refs) == 1 && refs[0] < len(cols) {
		base = table + "_" + cols[refs[0]].Name + "_check"
	}
	for n := 0; ; n++ {
		cand := base
		if n > 0 {
			cand = fmt.Sprintf("%s%d", base, n)
		}
		if !taken[cand] {
			return cand
		}
	}
}

// checkExpr binds a CHECK constraint's expression.
func (b *binder) checkExpr(name string, cols []catalog.Column, n ast.ExprNode) (expr.Expr, error) {
	if hasSubquery(n) {
		return nil, b.atNode(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in check constraint"), n)
	}
	c := tableScope(name, cols)
	c.clause = "check constraints"
	e, err := b.bindExpr(c, n)
	if err != nil {
		return nil, err
	}
	if e, err = b.decideParam(e, types.TBool); err != nil {
		return nil, err
	}
	if e.Type().ID != types.IDBool {
		if k, ok := e.(*expr.Const); ok && k.Value == nil {
			return expr.NewConst(nil, types.TBool), nil
		}
		return nil, b.atNode(pgerr.New(pgerr.DatatypeMismatch, "argument of CHECK must be type boolean, not type %s", e.Type()), n)
	}
	return e, nil
}

// rowRules binds the generated columns and CHECK constraints of table r
// for a statement that writes it; nil when it has none.
func (b *binder) rowRules(r *catalog.Relation) (*planner.RowRules, error) {
	var rules planner.RowRules
	for i, col := range r.Columns {
		if col.Generated == "" || col.Dropped {
			continue
		}
		n, err := sql.ParseExpr(col.Generated)
		if err != nil {
			return nil, err
		}
		e, err := b.generationExpr(r.Name, r.Columns, i, n)
		if err != nil {
			return nil, err
		}
		rules.Generated = append(rules.Generated, planner.GeneratedColumn{Col: i, Expr: e})
	}
	for _, chk := range r.Checks {
		n, err := sql.ParseExpr(chk.Expr)
		if err != nil {
			return nil, err
		}
		e, err := b.checkExpr(r.Name, r.Columns, n)
		if err != nil {
			return nil, err
		}
		rules.Checks = append(rules.Checks, planner.BoundCheck{Name: chk.Name, Expr: e})
	}
	// PostgreSQL checks a table's constraints in the order of their names.
	sort.SliceStable(rules.Checks, func(i, j int) bool { return rules.Checks[i].Name < rules.Checks[j].Name })
	if len(rules.Generated) == 0 && len(rules.Checks) == 0 {
		return nil, nil
	}
	return &rules, nil
}

// RowRules returns the rules of table r for COPY (see rowRules).
func RowRules(cat catalog.Reader, r *catalog.Relation) (*planner.RowRules, error) {
	return newBinder(cat, &sql.Statement{}, Options{}).rowRules(r)
}

// uniqueNotSupported refuses a UNIQUE constraint: streamdb keeps rows
// unique on the primary key only, and accepting one it does not enforce
// would be worse than refusing it.
func uniqueNotSupported() error {
	e := pgerr.New(pgerr.FeatureNotSupported, "UNIQUE constraints are not supported")
	e.Hint = "streamdb keeps a table's rows unique on its primary key only: make the columns the PRIMARY KEY."
	return e
}

// checkRulesWithoutDML refuses serial, identity and generated columns and
// CHECK constraints on a source or a table fed by a connector, whose rows
// do not go through INSERT or COPY.
func checkRulesWithoutDML(ct *planner.CreateTable) error {
	if !ct.Source && ct.Connector == nil {
		return nil
	}
	ruled := len(ct.Sequences) > 0 || len(ct.Checks) > 0 || len(ct.Uniques) > 0
	for _, c := range ct.Columns {
		ruled = ruled || c.Generated != ""
	}
	if ruled {
		return pgerr.New(pgerr.FeatureNotSupported, "serial, identity and generated columns and CHECK and UNIQUE constraints are not supported on a source or a table with a connector")
	}
	return nil
}

// checkWritable checks that an INSERT may write a value (not DEFAULT)
// into col: not into a generated column, nor into an identity column
// GENERATED ALWAYS without OVERRIDING SYSTEM VALUE. override is true
// when the value is to be ignored for the column's default (OVERRIDING
// USER VALUE into an identity column).
func (b *binder) checkWritable(col catalog.Column, node ast.Node) (override bool, err error) {
	switch {
	case col.Generated != "":
		e := pgerr.New(GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", col.Name)
		e.Detail = fmt.Sprintf("Column %q is a generated column.", col.Name)
		return false, b.atNode(e, node)
	case col.Identity != "" && b.overriding == "user":
		return true, nil
	case col.Identity == catalog.IdentityAlways && b.overriding != "system":
		e := pgerr.New(GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", col.Name)
		e.Detail = fmt.Sprintf("Column %q is an identity column defined as GENERATED ALWAYS.", col.Name)
		e.Hint = "Use OVERRIDING SYSTEM VALUE to override."
		return false, b.atNode(e, node)
	}
	return false, nil
}

// checkUpdatable checks that an UPDATE may set col to a value other
// than DEFAULT.
func (b *binder) checkUpdatable(col catalog.Column, node ast.Node) error {
	var detail string
	switch {
	case col.Generated != "":
		detail = fmt.Sprintf("Column %q is a generated column.", col.Name)
	case col.Identity == catalog.IdentityAlways:
		detail = fmt.Sprintf("Column %q is an identity column defined as GENERATED ALWAYS.", col.Name)
	default:
		return nil
	}
	e := pgerr.New(GeneratedAlways, "column %q can only be updated to DEFAULT", col.Name)
	e.Detail = detail
	return b.atNode(e, node)
}

// GeneratedAlways is the SQLSTATE of a value written into a generated
// column or an identity column GENERATED ALWAYS.
const GeneratedAlways = "428C9"

// identityDefault is the value an identity column takes: nextval of its
// sequence.
func (b *binder) identityDefault(col catalog.Column) (expr.Expr, error) {
	reg := types.Type{ID: types.IDRegclass}
	fs := b.functions()
	var f *catalog.Func
	if fs != nil {
		f, _ = fs.Function("nextval", []types.Type{reg})
	}
	if f == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "identity column %q cannot be filled here", col.Name)
	}
	arg := expr.NewConst(int64(catalog.FirstUserOID)+int64(col.IdentitySeq), reg)
	return expr.Native("nextval", []expr.Expr{arg}, f.Result, f.Strict, f.Eval), nil
}

// bindUniques resolves the UNIQUE constraints of s (of columns and of
// the table) and names them as PostgreSQL does: table_col[_col...]_key,
// numbered when the name is taken.
func (b *binder) bindUniques(s *sql.CreateTableStmt, name string, cols []catalog.Column) ([]catalog.Unique, error) {
	defs := slices.Clone(s.Uniques)
	for _, d := range s.Columns {
		if d.Unique {
			defs = append(defs, sql.UniqueDef{Name: d.UniqueName, Columns: []string{d.Name}})
		}
	}
	schema, own := catalog.SplitName(name)
	prefix := ""
	if name != own {
		prefix = schema + "."
	}
	var out []catalog.Unique
	taken := map[string]bool{}
	for _, d := range defs {
		u := catalog.Unique{Name: d.Name}
		for _, c := range d.Columns {
			i := slices.IndexFunc(cols, func(col catalog.Column) bool { return col.Name == c })
			if i < 0 {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", c)
			}
			if slices.Contains(u.Columns, i) {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column %q appears twice in unique constraint", c)
			}
			u.Columns = append(u.Columns, i)
		}
		if u.Name == "" {
			base := own + "_" + strings.Join(d.Columns, "_") + "_key"
			for n := 0; ; n++ {
				cand := base
				if n > 0 {
					cand = fmt.Sprintf("%s%d", base, n)
				}
				_, exists := b.cat.Relation(prefix + cand)
				if !exists && !taken[cand] && cand != own+"_pkey" {
					u.Name = cand
					break
				}
			}
		} else if _, exists := b.cat.Relation(prefix + u.Name); exists || taken[u.Name] {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", u.Name)
		}
		taken[u.Name] = true
		u.Name = prefix + u.Name
		out = append(out, u)
	}
	return out, nil
}

// NewCheck binds the CHECK constraint d that ALTER TABLE ... ADD adds to
// table r: named as CREATE TABLE names it, unless d names it, and
// refused when the name is taken. It returns the constraint and its
// expression over r's rows.
func NewCheck(cat catalog.Reader, r *catalog.Relation, d sql.CheckDef) (catalog.Check, expr.Expr, error) {
	b := newBinder(cat, &sql.Statement{}, Options{})
	e, err := b.checkExpr(r.Name, r.Columns, d.Expr)
	if err != nil {
		return catalog.Check{}, nil, err
	}
	_, own := catalog.SplitName(r.Name)
	taken := map[string]bool{}
	for _, c := range r.Checks {
		taken[c.Name] = true
	}
	for _, u := range r.Uniques {
		_, n := catalog.SplitName(u.Name)
		taken[n] = true
	}
	name := d.Name
	if name == "" {
		name = chooseCheckName(own, r.Columns, e, taken)
	} else if taken[name] {
		return catalog.Check{}, nil, pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", name, own)
	}
	return catalog.Check{Name: name, Expr: d.Text}, e, nil
}
