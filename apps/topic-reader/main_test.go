package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The golden stream is parsed by libs/kafka-tx/src/topic-reader.spec.ts too: both ends agree on it.
const golden = "testdata/frames.hex"

func goldenStream(t *testing.T) []byte {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	c := config{headers: []string{"run", "seq"}, keys: true, values: true}
	f := newFrameWriter(w, c)
	recs := []*kgo.Record{
		{Partition: 0, Offset: 5, Timestamp: time.UnixMilli(1700000000123), Key: []byte("k"), Value: []byte("v"),
			Headers: []kgo.RecordHeader{{Key: "run", Value: []byte("old")}, {Key: "other", Value: []byte("x")}, {Key: "run", Value: []byte("r1")}}},
		{Partition: 0, Offset: 6, Timestamp: time.UnixMilli(0), Key: nil, Value: nil,
			Headers: []kgo.RecordHeader{{Key: "seq", Value: []byte("7")}, {Key: "run", Value: []byte{}}}},
		{Partition: 3, Offset: 1 << 40, Timestamp: time.UnixMilli(-1), Key: []byte{}, Value: []byte{}},
	}
	for _, r := range recs[:2] {
		if err := f.record(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.partitionDone(span{partition: 0, begin: 5, end: 7}, 2); err != nil {
		t.Fatal(err)
	}
	if err := f.record(recs[2]); err != nil {
		t.Fatal(err)
	}
	if err := f.partitionDone(span{partition: 3, begin: 1 << 40, end: 1<<40 + 1}, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.done(3); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFramesMatchTheGoldenStream(t *testing.T) {
	got := hex.EncodeToString(goldenStream(t))
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(golden, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(want)) != got {
		t.Fatalf("stream differs from %s:\n got %s\nwant %s", golden, got, want)
	}
}

func TestFlagsFailFastWithTheFlagAndWhatWasExpected(t *testing.T) {
	base := []string{"-bootstrap", "127.0.0.1:19092", "-topic", "t", "-ranges", "0:0:10,2:5:5"}
	c, err := parseFlags(base, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.spans) != 2 || c.spans[1] != (span{partition: 2, begin: 5, end: 5}) || !c.readCommitted {
		t.Fatalf("parsed %+v", c)
	}
	bad := map[string][]string{
		"-bootstrap is required":       {"-topic", "t", "-ranges", "0:0:1"},
		"is not host:port":             {"-bootstrap", "nohost", "-topic", "t", "-ranges", "0:0:1"},
		"-topic is required":           {"-bootstrap", "h:1", "-ranges", "0:0:1"},
		"-ranges is required":          {"-bootstrap", "h:1", "-topic", "t"},
		"is not partition:begin:end":   {"-bootstrap", "h:1", "-topic", "t", "-ranges", "0:1"},
		"begin <= end":                 {"-bootstrap", "h:1", "-topic", "t", "-ranges", "0:5:4"},
		"given twice":                  {"-bootstrap", "h:1", "-topic", "t", "-ranges", "0:0:1,0:1:2"},
		"expected read_committed":      append([]string{"-isolation", "dirty"}, base...),
		"-stall-timeout-ms: got 5":     append([]string{"-stall-timeout-ms", "5"}, base...),
		"-headers: empty name":         append([]string{"-headers", "a,,b"}, base...),
		"-partition-max-bytes: got 10": append([]string{"-partition-max-bytes", "10"}, base...),
		"unexpected argument":          append(base, "extra"),
	}
	for want, args := range bad {
		_, err := parseFlags(args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: got %v, want an error containing %q", args, err, want)
		}
	}
}
