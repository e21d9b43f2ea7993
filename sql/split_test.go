package sql

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	type sp struct {
		Text   string
		Offset int
	}
	for _, tc := range []struct {
		in   string
		want []sp
	}{
		{`SELECT 1; SELECT 2`, []sp{{"SELECT 1", 0}, {"SELECT 2", 10}}},
		{`SELECT 1;;  ; SELECT 2;`, []sp{{"SELECT 1", 0}, {"SELECT 2", 14}}},
		{`select ';'; select "a;b"`, []sp{{"select ';'", 0}, {`select "a;b"`, 12}}},
		{`select E'\';'; x`, []sp{{`select E'\';'`, 0}, {"x", 15}}},
		{`select $$;$$; select $t$ $$;$$ $t$`, []sp{{"select $$;$$", 0}, {"select $t$ $$;$$ $t$", 14}}},
		{"select 1 -- ; no\n; b /* ; /* ; */ */", []sp{{"select 1 -- ; no", 0}, {"b /* ; /* ; */ */", 19}}},
		{"  \n ", nil},
		{"-- only a comment", []sp{{"-- only a comment", 0}}},
		{`a; select 'unterminated; b`, []sp{{"a", 0}, {"select 'unterminated; b", 3}}},
	} {
		var got []sp
		for _, s := range Split(tc.in) {
			got = append(got, sp{s.Text, s.Offset})
			if tc.in[s.Offset:s.Offset+len(s.Text)] != s.Text {
				t.Errorf("Split(%q): span %q not at offset %d", tc.in, s.Text, s.Offset)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q)\n got %v\nwant %v", tc.in, got, tc.want)
		}
	}
}
