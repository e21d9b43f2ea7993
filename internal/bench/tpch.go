package bench

import (
	"fmt"
	"math/rand"
	"strings"
	"time"
)

// TPCHTables are the tables in load order: each after those it refers to.
var TPCHTables = []string{"region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"}

var tpchColumns = map[string]string{
	"region": "r_regionkey INTEGER PRIMARY KEY, r_name VARCHAR(25) NOT NULL, r_comment VARCHAR(152) NOT NULL",
	"nation": "n_nationkey INTEGER PRIMARY KEY, n_name VARCHAR(25) NOT NULL, n_regionkey INTEGER NOT NULL, n_comment VARCHAR(152) NOT NULL",
	"part": "p_partkey INTEGER PRIMARY KEY, p_name VARCHAR(55) NOT NULL, p_mfgr VARCHAR(25) NOT NULL, " +
		"p_brand VARCHAR(10) NOT NULL, p_type VARCHAR(25) NOT NULL, p_size INTEGER NOT NULL, " +
		"p_container VARCHAR(10) NOT NULL, p_retailprice NUMERIC(15,2) NOT NULL, p_comment VARCHAR(23) NOT NULL",
	"supplier": "s_suppkey INTEGER PRIMARY KEY, s_name VARCHAR(25) NOT NULL, s_address VARCHAR(40) NOT NULL, " +
		"s_nationkey INTEGER NOT NULL, s_phone VARCHAR(15) NOT NULL, s_acctbal NUMERIC(15,2) NOT NULL, s_comment VARCHAR(101) NOT NULL",
	"partsupp": "ps_partkey INTEGER NOT NULL, ps_suppkey INTEGER NOT NULL, ps_availqty INTEGER NOT NULL, " +
		"ps_supplycost NUMERIC(15,2) NOT NULL, ps_comment VARCHAR(199) NOT NULL, PRIMARY KEY (ps_partkey, ps_suppkey)",
	"customer": "c_custkey INTEGER PRIMARY KEY, c_name VARCHAR(25) NOT NULL, c_address VARCHAR(40) NOT NULL, " +
		"c_nationkey INTEGER NOT NULL, c_phone VARCHAR(15) NOT NULL, c_acctbal NUMERIC(15,2) NOT NULL, " +
		"c_mktsegment VARCHAR(10) NOT NULL, c_comment VARCHAR(117) NOT NULL",
	"orders": "o_orderkey INTEGER PRIMARY KEY, o_custkey INTEGER NOT NULL, o_orderstatus VARCHAR(1) NOT NULL, " +
		"o_totalprice NUMERIC(15,2) NOT NULL, o_orderdate DATE NOT NULL, o_orderpriority VARCHAR(15) NOT NULL, " +
		"o_clerk VARCHAR(15) NOT NULL, o_shippriority INTEGER NOT NULL, o_comment VARCHAR(79) NOT NULL",
	"lineitem": "l_orderkey INTEGER NOT NULL, l_partkey INTEGER NOT NULL, l_suppkey INTEGER NOT NULL, " +
		"l_linenumber INTEGER NOT NULL, l_quantity NUMERIC(15,2) NOT NULL, l_extendedprice NUMERIC(15,2) NOT NULL, " +
		"l_discount NUMERIC(15,2) NOT NULL, l_tax NUMERIC(15,2) NOT NULL, l_returnflag VARCHAR(1) NOT NULL, " +
		"l_linestatus VARCHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, " +
		"l_receiptdate DATE NOT NULL, l_shipinstruct VARCHAR(25) NOT NULL, l_shipmode VARCHAR(10) NOT NULL, " +
		"l_comment VARCHAR(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber)",
}

// TPCHDDL is the CREATE TABLE statement of TPC-H table name; the same
// text creates it in PostgreSQL.
func TPCHDDL(table string) string {
	return fmt.Sprintf("CREATE TABLE %s (%s)", table, tpchColumns[table])
}

// TPCHInsert is an INSERT of rows (as TPCHGen makes them) into table.
func TPCHInsert(table string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " VALUES ")
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + strings.Join(r, ", ") + ")")
	}
	return b.String()
}

// TPCHGen generates a small, deterministic TPC-H-like data set: the
// eight tables with the standard columns, at a tiny scale (scale 1 is
// 100 parts, 40 suppliers, 150 customers, 500 orders and about 2,000
// lineitems), for tests that run the 22 queries as views. Its rows are
// lists of SQL literals, one per column; the same scale and seed give
// the same rows.
//
// The values follow the rules of TPC-H's dbgen (dates, flags, prices,
// the four suppliers of a part, customers that order nothing) but lean
// toward the values the queries filter on, so that every query returns
// rows at this size: half the parts take one of tpchPartProfiles, the
// suppliers past the first 25 (one per nation) and two customers in
// three sit in the nations the queries name, one order in 40 is a bulk
// order (q18), and one in three is punctual but for one lineitem at
// most (q21).
//
// TPC-H's CHAR(n) columns are VARCHAR(n) here: streamdb has no
// blank-padded character type.
type TPCHGen struct {
	rng                         *rand.Rand
	parts, suppliers, customers int
	orders                      int
	nextOrder                   int64
}

// NewTPCHGen returns a generator at scale (1 or more) seeded with seed.
func NewTPCHGen(scale int, seed int64) *TPCHGen {
	scale = max(scale, 1)
	return &TPCHGen{
		rng:       rand.New(rand.NewSource(seed)),
		parts:     100 * scale,
		suppliers: 40 * scale,
		customers: 150 * scale,
		orders:    500 * scale,
		nextOrder: 1,
	}
}

// Tables returns the rows of every table, keyed by table name: the
// fixed tables, then the initial orders and their lineitems.
func (g *TPCHGen) Tables() map[string][][]string {
	out := map[string][][]string{}
	out["region"] = g.regions()
	out["nation"] = g.nations()
	out["part"] = g.partRows()
	out["supplier"] = g.supplierRows()
	out["partsupp"] = g.partsuppRows()
	out["customer"] = g.customerRows()
	out["orders"], out["lineitem"] = g.Orders(g.orders)
	return out
}

// Orders returns n new orders (keys after the last generated) and their
// lineitems.
func (g *TPCHGen) Orders(n int) (orders, lineitems [][]string) {
	for range n {
		o, ls := g.order(g.nextOrder)
		g.nextOrder++
		orders = append(orders, o)
		lineitems = append(lineitems, ls...)
	}
	return orders, lineitems
}

// Rand is the generator's source, for callers that derive changes
// (updates, deletes) from the same seed.
func (g *TPCHGen) Rand() *rand.Rand { return g.rng }

// Customers is the number of customers (keys 1..Customers).
func (g *TPCHGen) Customers() int { return g.customers }

// Parts is the number of parts (keys 1..Parts).
func (g *TPCHGen) Parts() int { return g.parts }

// PartSuppliers are the suppliers of part p (TPC-H's rule: four, spread
// over the supplier keys); a lineitem of p names one of them.
func (g *TPCHGen) PartSuppliers(p int) [4]int {
	var out [4]int
	s := g.suppliers
	for i := range out {
		out[i] = (p+i*(s/4+(p-1)/s))%s + 1
	}
	return out
}

// --- fixed tables ---

var tpchRegions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}

// tpchNations are TPC-H's 25 nations, each with its region key.
var tpchNations = []struct {
	name   string
	region int
}{
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
	{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
	{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
	{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
	{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}

// tpchSupplierNations are the nations of the suppliers past the first
// 25 (one per nation), 15 in every 40: those the queries name, q21's
// SAUDI ARABIA most (a supplier that alone was late on an order is rare).
var tpchSupplierNations = []int{20, 3, 2, 7, 6, 20, 3, 2, 7, 6, 20, 8, 12, 18, 21}

// tpchCustomerNations are the nations of two customers in three: those
// of q5's region ASIA, q7's, and q8's region AMERICA.
var tpchCustomerNations = []int{2, 3, 24, 6, 7, 8, 9, 12, 18, 21}

func (g *TPCHGen) regions() [][]string {
	var rows [][]string
	for i, name := range tpchRegions {
		rows = append(rows, []string{fmt.Sprint(i), tpchQuote(name), tpchQuote(g.text(20, 100))})
	}
	return rows
}

func (g *TPCHGen) nations() [][]string {
	var rows [][]string
	for i, n := range tpchNations {
		rows = append(rows, []string{fmt.Sprint(i), tpchQuote(n.name), fmt.Sprint(n.region), tpchQuote(g.text(20, 100))})
	}
	return rows
}

func (g *TPCHGen) supplierRows() [][]string {
	var rows [][]string
	for s := 1; s <= g.suppliers; s++ {
		nation := (s - 1) % 40
		if nation >= len(tpchNations) {
			nation = tpchSupplierNations[nation-len(tpchNations)]
		}
		rows = append(rows, []string{
			fmt.Sprint(s), tpchQuote(fmt.Sprintf("Supplier#%09d", s)), tpchQuote(g.address()), fmt.Sprint(nation),
			tpchQuote(g.phone(nation)), tpchMoney(g.between(-99999, 999999)), tpchQuote(g.supplierComment()),
		})
	}
	return rows
}

// supplierComment: one supplier in ten has a complaint (q16 leaves
// them out), one in twenty a recommendation, as dbgen plants them.
func (g *TPCHGen) supplierComment() string {
	switch g.rng.Intn(20) {
	case 0, 1:
		return g.text(5, 30) + " Customer " + g.text(5, 20) + " Complaints " + g.text(5, 20)
	case 2:
		return g.text(5, 30) + " Customer " + g.text(5, 20) + " Recommends " + g.text(5, 20)
	}
	return g.text(25, 100)
}

func (g *TPCHGen) partsuppRows() [][]string {
	var rows [][]string
	for p := 1; p <= g.parts; p++ {
		for _, s := range g.PartSuppliers(p) {
			rows = append(rows, []string{
				fmt.Sprint(p), fmt.Sprint(s), fmt.Sprint(g.between(1, 9999)),
				tpchMoney(g.between(100, 100000)), tpchQuote(g.text(49, 198)),
			})
		}
	}
	return rows
}

// tpchColors are dbgen's part name words.
var tpchColors = strings.Fields(`almond antique aquamarine azure beige bisque black blanched blue blush ` +
	`brown burlywood burnished chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark deep ` +
	`dim dodger drab firebrick floral forest frosted gainsboro ghost goldenrod green grey honeydew hot ` +
	`indian ivory khaki lace lavender lawn lemon light lime linen magenta maroon medium metallic midnight ` +
	`mint misty moccasin navajo navy olive orange orchid pale papaya peach peru pink plum powder puff ` +
	`purple red rose rosy royal saddle salmon sandy seashell sienna sky slate smoke snow spring steel tan ` +
	`thistle tomato turquoise violet wheat white yellow`)

var (
	tpchTypes1      = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	tpchTypes2      = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	tpchTypes3      = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	tpchContainers1 = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	tpchContainers2 = []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
)

// tpchPart is one generated part before it becomes literals.
type tpchPart struct {
	name, typ, container string
	mfgr, brand, size    int // brand is 10*mfgr + 1..5
}

// tpchPartProfiles are the combinations of part attributes that the
// queries look for together, and random parts rarely hold at this size;
// half the parts take one.
var tpchPartProfiles = []func(g *TPCHGen, p *tpchPart){
	func(g *TPCHGen, p *tpchPart) { // q2
		p.size, p.typ = 15, g.pick(tpchTypes1)+" "+g.pick(tpchTypes2)+" BRASS"
	},
	func(g *TPCHGen, p *tpchPart) { p.typ = "ECONOMY ANODIZED STEEL" },        // q8
	func(g *TPCHGen, p *tpchPart) { p.setBrand(23); p.container = "MED BOX" }, // q17
	func(g *TPCHGen, p *tpchPart) { // q19, first branch
		p.setBrand(12)
		p.container, p.size = "SM "+g.pick([]string{"CASE", "BOX", "PACK", "PKG"}), int(g.between(1, 5))
	},
	func(g *TPCHGen, p *tpchPart) { // q19, second branch
		p.setBrand(23)
		p.container, p.size = "MED "+g.pick([]string{"BAG", "BOX", "PKG", "PACK"}), int(g.between(1, 10))
	},
	func(g *TPCHGen, p *tpchPart) { // q19, third branch
		p.setBrand(34)
		p.container, p.size = "LG "+g.pick([]string{"CASE", "BOX", "PACK", "PKG"}), int(g.between(1, 15))
	},
}

func (p *tpchPart) setBrand(b int) { p.mfgr, p.brand = b/10, b }

func (g *TPCHGen) partRows() [][]string {
	var rows [][]string
	for k := 1; k <= g.parts; k++ {
		p := g.part()
		rows = append(rows, []string{
			fmt.Sprint(k), tpchQuote(p.name), tpchQuote(fmt.Sprintf("Manufacturer#%d", p.mfgr)),
			tpchQuote(fmt.Sprintf("Brand#%d", p.brand)), tpchQuote(p.typ), fmt.Sprint(p.size), tpchQuote(p.container),
			tpchMoney(tpchRetailCents(k)), tpchQuote(g.text(5, 22)),
		})
	}
	return rows
}

func (g *TPCHGen) part() tpchPart {
	m := int(g.between(1, 5))
	p := tpchPart{
		name: g.partName(), mfgr: m, brand: 10*m + int(g.between(1, 5)), size: int(g.between(1, 50)),
		typ:       g.pick(tpchTypes1) + " " + g.pick(tpchTypes2) + " " + g.pick(tpchTypes3),
		container: g.pick(tpchContainers1) + " " + g.pick(tpchContainers2),
	}
	if g.rng.Intn(2) == 0 {
		tpchPartProfiles[g.rng.Intn(len(tpchPartProfiles))](g, &p)
	}
	return p
}

// partName is five distinct colors; one name in eight starts with
// forest (q20) and one in six holds green (q9).
func (g *TPCHGen) partName() string {
	words := make([]string, 0, 5)
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	if g.rng.Intn(8) == 0 {
		add("forest")
	}
	if g.rng.Intn(6) == 0 {
		add("green")
	}
	for len(words) < 5 {
		add(g.pick(tpchColors))
	}
	if words[0] != "forest" {
		g.rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	}
	return strings.Join(words, " ")
}

var tpchSegments = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"}

func (g *TPCHGen) customerRows() [][]string {
	var rows [][]string
	for c := 1; c <= g.customers; c++ {
		nation := g.rng.Intn(len(tpchNations))
		if g.rng.Intn(3) > 0 {
			nation = tpchCustomerNations[g.rng.Intn(len(tpchCustomerNations))]
		}
		rows = append(rows, []string{
			fmt.Sprint(c), tpchQuote(fmt.Sprintf("Customer#%09d", c)), tpchQuote(g.address()), fmt.Sprint(nation),
			tpchQuote(g.phone(nation)), tpchMoney(g.between(-99999, 999999)), tpchQuote(g.pick(tpchSegments)),
			tpchQuote(g.text(29, 116)),
		})
	}
	return rows
}

// --- orders and lineitems ---

var (
	tpchStart   = time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	tpchCurrent = time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC) // dbgen's CURRENTDATE
	// tpchOrderDays: order dates run from 1992-01-01 to 151 days before
	// 1998-12-31.
	tpchOrderDays = int(time.Date(1998, 12, 31, 0, 0, 0, 0, time.UTC).Sub(tpchStart).Hours()/24) - 151

	tpchPriorities = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	tpchInstructs  = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	tpchShipModes  = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
)

// tpchLineitem is one generated lineitem before it becomes literals.
type tpchLineitem struct {
	part, supp, number             int
	quantity, price, discount, tax int64 // price in cents, discount and tax in hundredths
	ship, commit, receipt          time.Time
	instruct, mode, comment        string
	flag                           string // R or A once received by dbgen's CURRENTDATE, N before
}

func (l tpchLineitem) shipped() bool { return !l.ship.After(tpchCurrent) }

// tpchOrderKind are the skews of an order's lineitems.
type tpchOrderKind struct {
	// bulk: 7 large lineitems (q18 looks for orders of over 300).
	bulk bool
	// late is the one lineitem that may arrive after its commit date (0:
	// any may, negative: none): q21 looks for suppliers that alone were
	// late on an order.
	late int
}

// order makes order key with 1 to 7 lineitems (7 large ones in a bulk
// order), its status and total derived from them as dbgen does.
func (g *TPCHGen) order(key int64) ([]string, [][]string) {
	cust := g.orderCustomer()
	date := tpchStart.AddDate(0, 0, g.rng.Intn(tpchOrderDays+1))
	kind := tpchOrderKind{bulk: g.rng.Intn(40) == 0}
	n := 1 + g.rng.Intn(7)
	if kind.bulk {
		n = 7
	}
	if g.rng.Intn(3) == 0 { // one order in three is punctual but for one lineitem at most
		kind.late = g.rng.Intn(2*n+1) - n
	}
	var rows [][]string
	var total int64 // in cents times 10^4 (price * (1+tax) * (1-discount))
	shipped := 0
	for i := 1; i <= n; i++ {
		l := g.lineitem(i, date, kind.bulk, kind.late == 0 || kind.late == i)
		total += l.price * (100 + l.tax) * (100 - l.discount)
		if l.shipped() {
			shipped++
		}
		rows = append(rows, l.literals(key))
	}
	order := []string{
		fmt.Sprint(key), fmt.Sprint(cust), tpchQuote(tpchOrderStatus(shipped, n)),
		tpchMoney((total + 5000) / 10000), tpchDate(date),
		tpchQuote(g.pick(tpchPriorities)), tpchQuote(fmt.Sprintf("Clerk#%09d", g.between(1, 20))), "0",
		tpchQuote(g.orderComment()),
	}
	return order, rows
}

// tpchOrderStatus is F when all n lineitems have shipped, O when none
// has, P otherwise.
func tpchOrderStatus(shipped, n int) string {
	switch shipped {
	case n:
		return "F"
	case 0:
		return "O"
	}
	return "P"
}

// orderCustomer: as in dbgen, a customer whose key is a multiple of 3
// places no orders (q22 counts them).
func (g *TPCHGen) orderCustomer() int {
	for {
		if c := g.between(1, int64(g.customers)); c%3 != 0 {
			return int(c)
		}
	}
}

// orderComment: one order in ten asks for special requests (q13 leaves
// them out).
func (g *TPCHGen) orderComment() string {
	if g.rng.Intn(10) == 0 {
		return g.text(3, 20) + " special " + g.text(3, 15) + " requests " + g.text(3, 20)
	}
	return g.text(19, 78)
}

// lineitem makes lineitem number of an order placed on orderDate; one
// that may not be late is received by its commit date.
func (g *TPCHGen) lineitem(number int, orderDate time.Time, bulk, mayBeLate bool) tpchLineitem {
	part := int(g.between(1, int64(g.parts)))
	qty := g.between(1, 50)
	if bulk {
		qty = g.between(40, 50)
	}
	commit := orderDate.AddDate(0, 0, int(g.between(30, 90)))
	ship := orderDate.AddDate(0, 0, int(g.between(1, 121)))
	receipt := ship.AddDate(0, 0, int(g.between(1, 30)))
	if !mayBeLate && receipt.After(commit) {
		ship = commit.AddDate(0, 0, -int(g.between(1, 29)))
		receipt = ship.AddDate(0, 0, int(g.between(1, int64(commit.Sub(ship).Hours()/24))))
	}
	flag := "N"
	if !receipt.After(tpchCurrent) {
		flag = g.pick([]string{"R", "A"})
	}
	return tpchLineitem{
		part: part, supp: g.PartSuppliers(part)[g.rng.Intn(4)], number: number,
		quantity: qty, price: qty * tpchRetailCents(part), discount: g.between(0, 10), tax: g.between(0, 8),
		ship: ship, commit: commit, receipt: receipt,
		instruct: g.pick(tpchInstructs), mode: g.pick(tpchShipModes), comment: g.text(10, 43), flag: flag,
	}
}

// tpchRetailCents is dbgen's retail price of part p, in cents.
func tpchRetailCents(p int) int64 {
	return int64(90000 + (p/10)%20001 + 100*(p%1000))
}

func (l tpchLineitem) literals(order int64) []string {
	status := "O"
	if l.shipped() {
		status = "F"
	}
	return []string{
		fmt.Sprint(order), fmt.Sprint(l.part), fmt.Sprint(l.supp), fmt.Sprint(l.number),
		fmt.Sprint(l.quantity), tpchMoney(l.price), fmt.Sprintf("0.%02d", l.discount), fmt.Sprintf("0.%02d", l.tax),
		tpchQuote(l.flag), tpchQuote(status), tpchDate(l.ship), tpchDate(l.commit), tpchDate(l.receipt),
		tpchQuote(l.instruct), tpchQuote(l.mode), tpchQuote(l.comment),
	}
}

// --- values ---

func (g *TPCHGen) between(lo, hi int64) int64 { return lo + g.rng.Int63n(hi-lo+1) }

func (g *TPCHGen) pick(from []string) string { return from[g.rng.Intn(len(from))] }

func (g *TPCHGen) phone(nation int) string {
	return fmt.Sprintf("%02d-%03d-%03d-%04d", nation+10, g.between(100, 999), g.between(100, 999), g.between(1000, 9999))
}

const tpchAlnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,"

func (g *TPCHGen) address() string {
	b := make([]byte, g.between(10, 40))
	for i := range b {
		b[i] = tpchAlnum[g.rng.Intn(len(tpchAlnum))]
	}
	return string(b)
}

// tpchWords are words of dbgen's text grammar.
var tpchWords = strings.Fields(`furiously quickly carefully blithely slyly ironically final regular ` +
	`pending express ironic even bold silent unusual deposits accounts packages theodolites foxes ` +
	`instructions dependencies excuses platelets asymptotes courts dolphins multipliers warthogs frets ` +
	`dinos attainments somas patterns forges braids frays warhorses epitaphs pearls tithes waters orbits ` +
	`gifts sheaves depths sentiments decoys realms pains ideas sleep wake are cajole haggle nag use boost ` +
	`affix detect integrate maintain nod was lose sublate solve thrash promise engage hinder print x-ray ` +
	`breach eat grow impress mold poach serve run dazzle snooze doze unwind kindle play hang believe doubt`)

// text is words of tpchWords, between lo and hi bytes long.
func (g *TPCHGen) text(lo, hi int) string {
	want := lo + g.rng.Intn(hi-lo+1)
	var b strings.Builder
	for b.Len() < want {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.pick(tpchWords))
	}
	return b.String()[:min(b.Len(), hi)]
}

// tpchQuote is s as a SQL string literal.
func tpchQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// tpchMoney is cents as a NUMERIC(15,2) literal.
func tpchMoney(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// tpchDate is t as a DATE literal.
func tpchDate(t time.Time) string { return "DATE '" + t.Format("2006-01-02") + "'" }
