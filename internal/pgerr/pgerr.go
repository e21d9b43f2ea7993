// Package pgerr is the error type that carries a Postgres SQLSTATE from the
// layer that detects a problem up to the client. Layers create errors with
// New or Wrap; pgwire turns them into ErrorResponse messages, and any error
// that is not a *Error reaches the client as XX000 (internal error).
package pgerr

import (
	"context"
	"errors"
	"fmt"
)

// SQLSTATE codes used by streamdb.
const (
	SyntaxError                 = "42601"
	UndefinedTable              = "42P01"
	UndefinedColumn             = "42703"
	UndefinedFunction           = "42883"
	UndefinedObject             = "42704"
	DuplicateTable              = "42P07"
	DuplicateObject             = "42710"
	DuplicateColumn             = "42701"
	AmbiguousColumn             = "42702"
	DatatypeMismatch            = "42804"
	InvalidRecursion            = "42P19"
	GroupingError               = "42803"
	InvalidColumnReference      = "42P10"
	FeatureNotSupported         = "0A000"
	DependentObjects            = "2BP01"
	DuplicateSchema             = "42P06"
	ReservedName                = "42939"
	InvalidSchemaName           = "3F000"
	UniqueViolation             = "23505"
	NotNullViolation            = "23502"
	NumericOutOfRange           = "22003"
	DivisionByZero              = "22012"
	InvalidTextRep              = "22P02"
	InvalidDatetimeFormat       = "22007"
	DatetimeFieldOverflow       = "22008"
	StringDataTooLong           = "22001"
	InvalidParameterValue       = "22023"
	DataException               = "22000"
	CardinalityViolation        = "21000"
	ObjectNotInPrereqState      = "55000"
	QueryCanceled               = "57014"
	AdminShutdown               = "57P01"
	SerializationFailure        = "40001"
	BadCopyFileFormat           = "22P04"
	InvalidBinaryRep            = "22P03"
	WrongObjectType             = "42809"
	InsufficientPrivilege       = "42501"
	CharacterNotInRepertoire    = "22021"
	ProtocolViolation           = "08P01"
	InvalidSQLStatement         = "26000"
	InvalidCursorName           = "34000"
	InvalidCursorState          = "24000"
	UndefinedParameter          = "42P02"
	CantChangeRuntimeParam      = "55P02"
	DiskFull                    = "53100"
	ProgramLimitExceeded        = "54000"
	StatementTooComplex         = "54001"
	TooManyArguments            = "54023"
	IOError                     = "58030"
	Internal                    = "XX000"
	InvalidTimeZoneDisplacement = "22009"
	// The window function family.
	WindowingError                  = "42P20"
	NullValueNotAllowed             = "22004"
	InvalidPrecedingOrFollowingSize = "22013"
	InvalidArgumentForNtile         = "22014"
	InvalidArgumentForNthValue      = "22016"
	// SequenceGeneratorLimitExceeded: nextval past a bound of a sequence
	// without CYCLE.
	SequenceGeneratorLimitExceeded = "2200H"
	// GeneratedAlways: a write of a value into a GENERATED ALWAYS column.
	GeneratedAlways = "428C9"
	// CheckViolation: a row a CHECK constraint refuses.
	CheckViolation = "23514"
	// InvalidObjectDefinition: a generation expression that is not
	// immutable.
	InvalidObjectDefinition = "42P17"
)

// Error is an error with a SQLSTATE. Position, when non-zero, is the
// 1-based character offset in the statement text that the error points at.
type Error struct {
	Code     string
	Message  string
	Detail   string
	Hint     string
	Position int
	// Where is the error's context (psql's CONTEXT line), such as
	// `COPY t, line 3, column v: "abc"`.
	Where    string
	Severity string // "ERROR" when empty
	cause    error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the error this one wraps, if any.
func (e *Error) Unwrap() error { return e.cause }

// New returns an error with the given SQLSTATE and formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with the given SQLSTATE whose message is msg: cause.
func Wrap(cause error, code, msg string) *Error {
	return &Error{Code: code, Message: msg + ": " + cause.Error(), cause: cause}
}

// WithPosition returns a copy of e that points at position pos.
func (e *Error) WithPosition(pos int) *Error {
	c := *e
	c.Position = pos
	return &c
}

// Code returns the SQLSTATE of err: that of the first *Error in its chain,
// QueryCanceled for a context cancellation, Internal otherwise.
func Code(err error) string {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return QueryCanceled
	}
	return Internal
}

// As returns the first *Error in err's chain, or an Internal error wrapping
// err when there is none.
func As(err error) *Error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, context.Canceled) {
		return &Error{Code: QueryCanceled, Message: "canceling statement due to user request", cause: err}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: QueryCanceled, Message: "canceling statement due to statement timeout", cause: err}
	}
	return &Error{Code: Internal, Message: err.Error(), cause: err}
}
