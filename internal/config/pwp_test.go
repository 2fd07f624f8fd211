package config

import (
	"reflect"
	"strings"
	"testing"

	"hush/internal/push"
)

func TestPWPMapping(t *testing.T) {
	tests := []struct {
		name, value string
		want        func(*push.Settings)
	}{
		{"PWP__ALLOW_ANONYMOUS", "false", func(s *push.Settings) { s.AllowAnonymous = false }},
		{"PWP__ENABLE_FILE_PUSHES", "No", func(s *push.Settings) { s.EnableFilePushes = false }},
		{"PWP__ENABLE_URL_PUSHES", " off ", func(s *push.Settings) { s.EnableURLPushes = false }},
		{"PWP__ENABLE_QR_PUSHES", "0", func(s *push.Settings) { s.EnableQRPushes = false }},
		{"PWP__ALLOW_ANONYMOUS", "TRUE", func(s *push.Settings) {}},
		{"PWP__FILES__MAX_FILE_UPLOADS", "0", func(s *push.Settings) { s.MaxFileUploads = 0 }},
		{"PWP__FILES__MAX_FILE_UPLOADS", " 25 ", func(s *push.Settings) { s.MaxFileUploads = 25 }},
		{"PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT", "3", func(s *push.Settings) { s.Text.ExpireAfterDaysDefault = 3 }},
		{"PWP__PW__EXPIRE_AFTER_DAYS_MIN", "2", func(s *push.Settings) { s.Text.ExpireAfterDaysMin = 2 }},
		{"PWP__PW__EXPIRE_AFTER_DAYS_MAX", "30", func(s *push.Settings) { s.Text.ExpireAfterDaysMax = 30 }},
		{"PWP__PW__EXPIRE_AFTER_VIEWS_DEFAULT", "10", func(s *push.Settings) { s.Text.ExpireAfterViewsDefault = 10 }},
		{"PWP__PW__ENABLE_DELETABLE_PUSHES", "f", func(s *push.Settings) { s.Text.EnableDeletable = false }},
		{"PWP__PW__DELETABLE_PUSHES_DEFAULT", "no", func(s *push.Settings) { s.Text.DeletableDefault = false }},
		{"PWP__URL__EXPIRE_AFTER_VIEWS_MIN", "2", func(s *push.Settings) { s.URL.ExpireAfterViewsMin = 2 }},
		{"PWP__URL__EXPIRE_AFTER_VIEWS_MAX", "500", func(s *push.Settings) { s.URL.ExpireAfterViewsMax = 500 }},
		{"PWP__URL__ENABLE_RETRIEVAL_STEP", "false", func(s *push.Settings) { s.URL.EnableRetrievalStep = false }},
		{"PWP__URL__ENABLE_DELETABLE_PUSHES", "false", func(s *push.Settings) {}},
		{"PWP__URL__DELETABLE_PUSHES_DEFAULT", "garbage", func(s *push.Settings) {}},
		{"PWP__FILES__EXPIRE_AFTER_DAYS_MAX", "3650", func(s *push.Settings) { s.Files.ExpireAfterDaysMax = 3650 }},
		{"PWP__FILES__RETRIEVAL_STEP_DEFAULT", "off", func(s *push.Settings) { s.Files.RetrievalStepDefault = false }},
		{"PWP__FILES__ENABLE_DELETABLE_PUSHES", "0", func(s *push.Settings) { s.Files.EnableDeletable = false }},
		{"PWP__QR__EXPIRE_AFTER_DAYS_DEFAULT", "1", func(s *push.Settings) { s.QR.ExpireAfterDaysDefault = 1 }},
		{"PWP__QR__EXPIRE_AFTER_VIEWS_MAX", "1000000", func(s *push.Settings) { s.QR.ExpireAfterViewsMax = 1000000 }},
		{"PWP__QR__DELETABLE_PUSHES_DEFAULT", "false", func(s *push.Settings) { s.QR.DeletableDefault = false }},
		{"PWP__QR__ENABLE_RETRIEVAL_STEP", "t", func(s *push.Settings) {}},
		{"PWP__QR__EXPIRE_AFTER_DAYS_MIN", "", func(s *push.Settings) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			c := mustLoad(t, nil, map[string]string{tt.name: tt.value})
			want := push.DefaultSettings()
			tt.want(&want)
			if !reflect.DeepEqual(c.Push, want) {
				t.Errorf("Push:\n got %+v\nwant %+v", c.Push, want)
			}
		})
	}
}

func TestPWPRangeErrors(t *testing.T) {
	tests := []struct {
		env     map[string]string
		mention string
	}{
		{map[string]string{"PWP__PW__EXPIRE_AFTER_DAYS_MIN": "8"}, "PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT"},
		{map[string]string{"PWP__PW__EXPIRE_AFTER_DAYS_MAX": "5"}, "PWP__PW__EXPIRE_AFTER_DAYS_MAX"},
		{map[string]string{"PWP__URL__EXPIRE_AFTER_DAYS_MIN": "-3"}, "PWP__URL__EXPIRE_AFTER_DAYS_MIN"},
		{map[string]string{"PWP__FILES__EXPIRE_AFTER_VIEWS_MIN": "10", "PWP__FILES__EXPIRE_AFTER_VIEWS_MAX": "9"}, "PWP__FILES__EXPIRE_AFTER_VIEWS_MIN"},
		{map[string]string{"PWP__QR__EXPIRE_AFTER_VIEWS_DEFAULT": "0"}, "PWP__QR__EXPIRE_AFTER_VIEWS_DEFAULT"},
		{map[string]string{"PWP__QR__EXPIRE_AFTER_DAYS_MAX": "3651"}, "PWP__QR__EXPIRE_AFTER_DAYS_MAX"},
	}
	for _, tt := range tests {
		_, err := Load(nil, envMap(tt.env))
		if err == nil {
			t.Errorf("%v: want error", tt.env)
			continue
		}
		if !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("%v: error %q does not mention %s", tt.env, err, tt.mention)
		}
	}
}

func TestPWPConsistentOverride(t *testing.T) {
	c := mustLoad(t, nil, map[string]string{
		"PWP__PW__EXPIRE_AFTER_DAYS_MIN":        "2",
		"PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT":    "100",
		"PWP__PW__EXPIRE_AFTER_DAYS_MAX":        "365",
		"PWP__PW__EXPIRE_AFTER_VIEWS_MIN":       "1",
		"PWP__PW__EXPIRE_AFTER_VIEWS_DEFAULT":   "1",
		"PWP__PW__EXPIRE_AFTER_VIEWS_MAX":       "1",
		"PWP__FILES__EXPIRE_AFTER_DAYS_MIN":     "1",
		"PWP__FILES__EXPIRE_AFTER_DAYS_MAX":     "1",
		"PWP__FILES__EXPIRE_AFTER_DAYS_DEFAULT": "1",
	})
	if k := c.Push.Text; k.ExpireAfterDaysMin != 2 || k.ExpireAfterDaysDefault != 100 || k.ExpireAfterDaysMax != 365 ||
		k.ExpireAfterViewsMax != 1 {
		t.Errorf("Text = %+v", k)
	}
	if k := c.Push.Files; k.ExpireAfterDaysMax != 1 || k.ExpireAfterDaysDefault != 1 {
		t.Errorf("Files = %+v", k)
	}
}
