package pgwire

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

// summary renders a backend message compactly for comparisons.
func summary(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.RowDescription:
		var f []string
		for _, fd := range m.Fields {
			f = append(f, fmt.Sprintf("%s:%d/%d", fd.Name, fd.DataTypeOID, fd.Format))
		}
		return "RowDescription " + strings.Join(f, ",")
	case *pgproto3.DataRow:
		var v []string
		for _, val := range m.Values {
			if val == nil {
				v = append(v, "NULL")
			} else {
				v = append(v, fmt.Sprintf("%q", val))
			}
		}
		return "DataRow " + strings.Join(v, ",")
	case *pgproto3.CommandComplete:
		return "CommandComplete " + string(m.CommandTag)
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus)
	case *pgproto3.ErrorResponse:
		return fmt.Sprintf("ErrorResponse %s %s %s", m.Severity, m.Code, m.Message)
	case *pgproto3.NoticeResponse:
		return fmt.Sprintf("NoticeResponse %s %s", m.Severity, m.Message)
	case *pgproto3.ParameterDescription:
		return fmt.Sprintf("ParameterDescription %v", m.ParameterOIDs)
	case *pgproto3.CopyData:
		return fmt.Sprintf("CopyData %q", m.Data)
	case *pgproto3.CopyInResponse:
		return fmt.Sprintf("CopyInResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
	case *pgproto3.CopyOutResponse:
		return fmt.Sprintf("CopyOutResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.")
}
