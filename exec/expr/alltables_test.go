package expr

func allCaseTables() [][]exprCase {
	return [][]exprCase{arithCases, compareCases, logicCases, castCases, funcCases, dateTimeCases}
}
