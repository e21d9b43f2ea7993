package expr

import "testing"

func TestArithmetic(t *testing.T)      { runCases(t, arithCases) }
func TestComparison(t *testing.T)      { runCases(t, compareCases) }
func TestLogicLikeConcat(t *testing.T) { runCases(t, logicCases) }
func TestCast(t *testing.T)            { runCases(t, castCases) }
func TestFunctions(t *testing.T)       { runCases(t, funcCases) }
func TestDateTime(t *testing.T)        { runCases(t, dateTimeCases) }
