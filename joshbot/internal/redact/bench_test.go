package redact

import (
	"io"
	"testing"
)

func BenchmarkWriterLogLine(b *testing.B) {
	w := New("/home/josh").NewWriter(io.Discard)
	line := []byte(`time=2026-01-01T00:00:00Z level=DEBUG msg="tool error" tool=read_file dur=1.2ms err="path \"/home/josh/x\" does not exist; Authorization: Bearer abc sk-proj-AbCdEf0123456789AbCdEf0123456789"` + "\n")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		w.Write(line)
	}
}
