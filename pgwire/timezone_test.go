package pgwire

import "testing"

func TestOptionSetting(t *testing.T) {
	for _, c := range []struct {
		options, value string
		found          bool
	}{
		{"-c timezone=Europe/Paris", "Europe/Paris", true},
		{"-cTimeZone=UTC+3", "UTC+3", true},
		{"--timezone=Asia/Tokyo -c search_path=s", "Asia/Tokyo", true},
		{`-c timezone=America/Port-au-Prince -c datestyle=ISO\,\ MDY`, "America/Port-au-Prince", true},
		{"-c timezone=a -c timezone=b", "b", true},
		{"-c search_path=public", "", false},
		{"", "", false},
	} {
		v, ok := optionSetting(c.options, "timezone")
		if v != c.value || ok != c.found {
			t.Errorf("optionSetting(%q) = %q, %v; want %q, %v", c.options, v, ok, c.value, c.found)
		}
	}
}
