package pykernel

import (
	"reflect"
	"testing"
)

func TestKernelEnv(t *testing.T) {
	tests := []struct {
		name string
		base []string
		want []string
	}{
		{
			name: "allowed kept in order",
			base: []string{"HOME=/h", "PATH=/bin", "LC_ALL=C", "LANG=en_US.UTF-8", "VIRTUAL_ENV=/v"},
			want: []string{"HOME=/h", "PATH=/bin", "LC_ALL=C", "LANG=en_US.UTF-8", "VIRTUAL_ENV=/v"},
		},
		{
			name: "secrets dropped",
			base: []string{
				"PATH=/bin", "ALBEDO_API_KEY=k", "ALBEDO_TOKEN=t", "ALBEDO_HOME=/a", "albedo_x=1",
				"OPENAI_API_KEY=k", "GITHUB_TOKEN=t", "MY_SECRET=s", "DB_PASSWORD=p", "openai_api_key=k",
			},
			want: []string{"PATH=/bin"},
		},
		{
			name: "denied even when allowed by prefix",
			base: []string{"PATH=/bin", "LC_TOKEN=x", "LC_CTYPE=C.UTF-8"},
			want: []string{"PATH=/bin", "LC_CTYPE=C.UTF-8"},
		},
		{
			name: "unknown dropped",
			base: []string{"PATH=/bin", "EDITOR=vim", "SSH_AUTH_SOCK=/s", "AWS_ACCESS_KEY_ID=a", "PYTHONSTARTUP=/x", "malformed"},
			want: []string{"PATH=/bin"},
		},
		{
			name: "last duplicate wins",
			base: []string{"HOME=/a", "PATH=/bin", "HOME=/b"},
			want: []string{"HOME=/b", "PATH=/bin"},
		},
		{
			name: "default PATH",
			base: []string{"HOME=/h"},
			want: []string{"HOME=/h", "PATH=" + defaultPath},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kernelEnv(tt.base); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("kernelEnv = %q, want %q", got, tt.want)
			}
		})
	}
}
