package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// convert_to(text, encoding) and convert_from(bytea, encoding): the
// database encoding is UTF8, and streamdb converts to and from UTF8,
// LATIN1 and SQL_ASCII (no conversion, as PostgreSQL does it); the other
// encodings PostgreSQL knows are 0A000. Encoding names are read as
// PostgreSQL reads them: case and non-alphanumerics ignored ('utf-8').

// The encodings streamdb converts.
const (
	encUTF8     = "UTF8"
	encLatin1   = "LATIN1"
	encSQLASCII = "SQL_ASCII"
)

// pgEncodings maps the cleaned names of PostgreSQL 15's encodings (and
// the aliases of the ones streamdb converts) to their canonical names.
var pgEncodings = func() map[string]string {
	m := map[string]string{"unicode": encUTF8, "iso88591": encLatin1}
	for _, n := range strings.Fields(`SQL_ASCII EUC_JP EUC_CN EUC_KR EUC_TW EUC_JIS_2004 UTF8 MULE_INTERNAL
		LATIN1 LATIN2 LATIN3 LATIN4 LATIN5 LATIN6 LATIN7 LATIN8 LATIN9 LATIN10 WIN1256 WIN1258 WIN866 WIN874
		KOI8R WIN1251 WIN1252 ISO_8859_5 ISO_8859_6 ISO_8859_7 ISO_8859_8 WIN1250 WIN1253 WIN1254 WIN1255
		WIN1257 KOI8U SJIS BIG5 GBK UHC GB18030 JOHAB SHIFT_JIS_2004`) {
		m[cleanEncodingName(n)] = n
	}
	return m
}()

// cleanEncodingName is PostgreSQL's clean_encoding_name: lower case,
// letters and digits only.
func cleanEncodingName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
		}
	}
	return b.String()
}

// encodingNamed returns the canonical name of the encoding named name;
// role ("source" or "destination") words the error.
func encodingNamed(name, role string) (string, error) {
	enc, ok := pgEncodings[cleanEncodingName(name)]
	switch {
	case !ok:
		return "", pgerr.New(pgerr.InvalidParameterValue, `invalid %s encoding name "%s"`, role, name)
	case enc != encUTF8 && enc != encLatin1 && enc != encSQLASCII:
		return "", pgerr.New(pgerr.FeatureNotSupported, "conversion between %s and %s is not supported", encUTF8, enc)
	}
	return enc, nil
}

// convertTo is convert_to(s, encoding): the bytes of s in that encoding.
func convertTo(a []types.Datum) (types.Datum, error) {
	s := a[0].(string)
	enc, err := encodingNamed(a[1].(string), "destination")
	if err != nil {
		return nil, err
	}
	if err := verifyUTF8(s); err != nil {
		return nil, err
	}
	if enc != encLatin1 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i, r := range s {
		if r > 0xff {
			return nil, pgerr.New("22P05", `character with byte sequence %s in encoding "%s" has no equivalent in encoding "%s"`,
				byteList(s[i:i+utf8.RuneLen(r)]), encUTF8, encLatin1)
		}
		b = append(b, byte(r))
	}
	return string(b), nil
}

// convertFrom is convert_from(b, encoding): b read as text in that
// encoding.
func convertFrom(a []types.Datum) (types.Datum, error) {
	s := a[0].(string)
	enc, err := encodingNamed(a[1].(string), "source")
	if err != nil {
		return nil, err
	}
	if enc != encLatin1 {
		return s, verifyUTF8(s)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return nil, invalidEncoding(encLatin1, s[i:i+1])
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String(), nil
}

// verifyUTF8 is PostgreSQL's check of a UTF8 string: no NUL, no invalid
// or truncated sequence (the error shows the bytes of the sequence its
// first byte announces).
func verifyUTF8(s string) error {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0 || (r == utf8.RuneError && n <= 1) {
			return invalidEncoding(encUTF8, s[i:min(len(s), i+utf8SeqLen(s[i]))])
		}
		i += n
	}
	return nil
}

// utf8SeqLen is the length of the UTF-8 sequence its first byte c
// announces (1 for a byte that starts none), as pg_utf_mblen says.
func utf8SeqLen(c byte) int {
	switch {
	case c&0xe0 == 0xc0:
		return 2
	case c&0xf0 == 0xe0:
		return 3
	case c&0xf8 == 0xf0:
		return 4
	}
	return 1
}

func invalidEncoding(enc, seq string) error {
	return pgerr.New(pgerr.CharacterNotInRepertoire, `invalid byte sequence for encoding "%s": %s`, enc, byteList(seq))
}

// byteList prints bytes as PostgreSQL's encoding errors do: 0xe2 0x82.
func byteList(s string) string {
	parts := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		parts[i] = fmt.Sprintf("0x%02x", s[i])
	}
	return strings.Join(parts, " ")
}
