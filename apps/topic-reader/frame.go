package main

// The stream on stdout, little-endian, one frame after another (libs/kafka-tx/src/topic-reader.ts
// parses it):
//
//	record:    u8 1, i32 partition, i64 offset, i64 timestamp (ms),
//	           [key: i32 length (-1 null), bytes]            when -keys
//	           per -headers name: i32 length (-1 absent), bytes
//	           [value: i32 length (-1 null), bytes]          when -values
//	partition: u8 2, i32 partition, i64 records emitted, i64 end offset
//	done:      u8 3, i64 records emitted in all
//
// A stream without its done frame was cut short: the reason is on stderr.

import (
	"bufio"
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	frameRecord    = 1
	framePartition = 2
	frameDone      = 3
)

type frameWriter struct {
	w       *bufio.Writer
	keys    bool
	values  bool
	scratch []byte
	index   map[string]int
	slots   [][]byte
	present []bool
}

func newFrameWriter(w *bufio.Writer, c config) *frameWriter {
	index := make(map[string]int, len(c.headers))
	for i, h := range c.headers {
		index[h] = i
	}
	return &frameWriter{
		w:       w,
		keys:    c.keys,
		values:  c.values,
		scratch: make([]byte, 0, 64),
		index:   index,
		slots:   make([][]byte, len(c.headers)),
		present: make([]bool, len(c.headers)),
	}
}

func (f *frameWriter) bytes(b []byte, present bool) {
	if !present {
		f.scratch = binary.LittleEndian.AppendUint32(f.scratch, 0xffffffff)
		return
	}
	f.scratch = binary.LittleEndian.AppendUint32(f.scratch, uint32(len(b)))
	_ = f.flushScratch()
	_, _ = f.w.Write(b) // an error sticks: see flushScratch
}

// flushScratch moves the frame's fixed part to the writer; a write error (the reader went away)
// sticks in the bufio.Writer, so every later write returns it too.
func (f *frameWriter) flushScratch() error {
	_, err := f.w.Write(f.scratch)
	f.scratch = f.scratch[:0]
	return err
}

func (f *frameWriter) record(r *kgo.Record) error {
	f.scratch = append(f.scratch[:0], frameRecord)
	f.scratch = binary.LittleEndian.AppendUint32(f.scratch, uint32(r.Partition))
	f.scratch = binary.LittleEndian.AppendUint64(f.scratch, uint64(r.Offset))
	f.scratch = binary.LittleEndian.AppendUint64(f.scratch, uint64(r.Timestamp.UnixMilli()))
	if f.keys {
		f.bytes(r.Key, r.Key != nil)
	}
	if len(f.slots) > 0 {
		clear(f.present)
		for _, h := range r.Headers {
			if i, ok := f.index[h.Key]; ok {
				f.slots[i] = h.Value // a repeated header keeps its last value, as kafka-tx's InRecord
				f.present[i] = true
			}
		}
		for i := range f.slots {
			f.bytes(f.slots[i], f.present[i])
		}
	}
	if f.values {
		f.bytes(r.Value, r.Value != nil)
	}
	return f.flushScratch()
}

func (f *frameWriter) partitionDone(s span, n int64) error {
	f.scratch = append(f.scratch[:0], framePartition)
	f.scratch = binary.LittleEndian.AppendUint32(f.scratch, uint32(s.partition))
	f.scratch = binary.LittleEndian.AppendUint64(f.scratch, uint64(n))
	f.scratch = binary.LittleEndian.AppendUint64(f.scratch, uint64(s.end))
	return f.flushScratch()
}

func (f *frameWriter) done(total int64) error {
	f.scratch = append(f.scratch[:0], frameDone)
	f.scratch = binary.LittleEndian.AppendUint64(f.scratch, uint64(total))
	if err := f.flushScratch(); err != nil {
		return err
	}
	return f.w.Flush()
}
