// topic-reader reads given offset ranges of one Kafka topic and writes the records to stdout as a
// compact binary stream (frame.go), for the reconciler: about 2 µs of CPU a record, where the Node
// binding costs about 50 µs (docs/MEASUREMENTS.md). It never commits, joins a group or writes.
//
// The caller decides the ranges (kafka-tx's readRanges: log start or the first offset at a time,
// up to the end offsets it captured); this program reads each partition from its begin offset up
// to, not including, its end, in the order given, and emits only what was asked for: the named
// headers, and the key and value when asked. Records are read with plain Fetch requests to each
// partition's leader and decoded by franz-go's ProcessFetchPartition, which also returns the next
// offset to ask for: aborted and control records advance it though they are not returned, so a
// read_committed range whose last records were aborted still ends exactly at its end offset.
//
// Exit codes: 0 read everything, 64 bad flags, 70 Kafka failed (the reason is the last line on
// stderr).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const (
	exitUsage   = 64
	exitFailure = 70
)

// span is one partition's half-open offset range [begin, end).
type span struct {
	partition int32
	begin     int64
	end       int64
}

type config struct {
	bootstrap     []string
	clientID      string
	topic         string
	spans         []span
	headers       []string
	keys          bool
	values        bool
	readCommitted bool
	stallTimeout  time.Duration
	partitionMax  int32
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("topic-reader", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bootstrap := fs.String("bootstrap", "", "Kafka bootstrap servers, host:port[,host:port...] (required)")
	clientID := fs.String("client-id", "topic-reader", "Kafka client id")
	topic := fs.String("topic", "", "the topic (required)")
	ranges := fs.String("ranges", "", "partition:begin:end[,...] half-open offset ranges, read in this order (required)")
	headers := fs.String("headers", "", "comma-separated header names to emit, in this order (a repeated header keeps its last value)")
	keys := fs.Bool("keys", false, "emit each record's key")
	values := fs.Bool("values", false, "emit each record's value")
	isolation := fs.String("isolation", "read_committed", "read_committed or read_uncommitted")
	stallMs := fs.Int("stall-timeout-ms", 120000, "fail when a partition makes no progress for this long, 1000 to 3600000")
	partitionMax := fs.Int("partition-max-bytes", 16<<20, "bytes asked for per fetch, 65536 to 268435456")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	c := config{
		clientID:     *clientID,
		topic:        *topic,
		keys:         *keys,
		values:       *values,
		stallTimeout: time.Duration(*stallMs) * time.Millisecond,
		partitionMax: int32(*partitionMax),
	}
	for _, hp := range strings.Split(*bootstrap, ",") {
		hp = strings.TrimSpace(hp)
		if hp == "" {
			continue
		}
		if i := strings.LastIndex(hp, ":"); i <= 0 || i == len(hp)-1 {
			return config{}, fmt.Errorf("-bootstrap: %q is not host:port", hp)
		}
		c.bootstrap = append(c.bootstrap, hp)
	}
	if len(c.bootstrap) == 0 {
		return config{}, errors.New("-bootstrap is required: host:port[,host:port...]")
	}
	if c.topic == "" {
		return config{}, errors.New("-topic is required")
	}
	switch *isolation {
	case "read_committed":
		c.readCommitted = true
	case "read_uncommitted":
	default:
		return config{}, fmt.Errorf("-isolation: got %q; expected read_committed or read_uncommitted", *isolation)
	}
	if *stallMs < 1000 || *stallMs > 3600000 {
		return config{}, fmt.Errorf("-stall-timeout-ms: got %d; expected 1000 to 3600000", *stallMs)
	}
	if *partitionMax < 65536 || *partitionMax > 268435456 {
		return config{}, fmt.Errorf("-partition-max-bytes: got %d; expected 65536 to 268435456", *partitionMax)
	}
	spans, err := parseRanges(*ranges)
	if err != nil {
		return config{}, err
	}
	c.spans = spans
	if *headers != "" {
		for _, h := range strings.Split(*headers, ",") {
			if h == "" {
				return config{}, fmt.Errorf("-headers: empty name in %q", *headers)
			}
			c.headers = append(c.headers, h)
		}
	}
	if len(c.headers) > 255 {
		return config{}, errors.New("-headers: at most 255 names")
	}
	return c, nil
}

func parseRanges(s string) ([]span, error) {
	if s == "" {
		return nil, errors.New("-ranges is required: partition:begin:end[,...]")
	}
	seen := map[int32]bool{}
	var out []span
	for _, part := range strings.Split(s, ",") {
		f := strings.Split(part, ":")
		if len(f) != 3 {
			return nil, fmt.Errorf("-ranges: %q is not partition:begin:end", part)
		}
		p, err1 := strconv.ParseInt(f[0], 10, 32)
		b, err2 := strconv.ParseInt(f[1], 10, 64)
		e, err3 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || p < 0 || b < 0 || e < b {
			return nil, fmt.Errorf("-ranges: %q: expected non-negative integers with begin <= end", part)
		}
		if seen[int32(p)] {
			return nil, fmt.Errorf("-ranges: partition %d given twice", p)
		}
		seen[int32(p)] = true
		out = append(out, span{partition: int32(p), begin: b, end: e})
	}
	return out, nil
}

// leader is where a partition's fetches go.
type leader struct {
	node    int32
	epoch   int32
	topicID [16]byte
}

type reader struct {
	cfg    config
	cl     *kgo.Client
	dec    kgo.Decompressor
	out    *frameWriter
	logErr func(string)
}

// lookup asks for the topic's metadata and returns the leader of one partition.
func (r *reader) lookup(ctx context.Context, partition int32) (leader, error) {
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(r.cfg.topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		return leader{}, fmt.Errorf("metadata: %w", err)
	}
	for _, mt := range resp.Topics {
		if mt.Topic == nil || *mt.Topic != r.cfg.topic {
			continue
		}
		if err := kerr.ErrorForCode(mt.ErrorCode); err != nil {
			return leader{}, fmt.Errorf("metadata of topic %s: %w", r.cfg.topic, err)
		}
		for _, mp := range mt.Partitions {
			if mp.Partition != partition {
				continue
			}
			if err := kerr.ErrorForCode(mp.ErrorCode); err != nil {
				return leader{}, fmt.Errorf("metadata of partition %d: %w", partition, err)
			}
			if mp.Leader < 0 {
				return leader{}, fmt.Errorf("partition %d has no leader: %w", partition, kerr.LeaderNotAvailable)
			}
			return leader{node: mp.Leader, epoch: mp.LeaderEpoch, topicID: mt.TopicID}, nil
		}
		return leader{}, fmt.Errorf("topic %s has no partition %d", r.cfg.topic, partition)
	}
	return leader{}, fmt.Errorf("topic %s not in the metadata: %w", r.cfg.topic, kerr.UnknownTopicOrPartition)
}

// fetch asks the leader for the records of one partition from offset.
func (r *reader) fetch(ctx context.Context, l leader, partition int32, offset int64) (*kmsg.FetchResponseTopicPartition, error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 100
	req.MinBytes = 1
	req.MaxBytes = r.cfg.partitionMax
	if r.cfg.readCommitted {
		req.IsolationLevel = 1
	}
	req.SessionEpoch = -1 // no fetch session: every request names its partition
	t := kmsg.NewFetchRequestTopic()
	t.Topic = r.cfg.topic
	t.TopicID = l.topicID
	p := kmsg.NewFetchRequestTopicPartition()
	p.Partition = partition
	p.FetchOffset = offset
	p.CurrentLeaderEpoch = l.epoch
	p.LogStartOffset = -1
	p.PartitionMaxBytes = r.cfg.partitionMax
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	kresp, err := r.cl.Broker(int(l.node)).Request(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := kresp.(*kmsg.FetchResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			if rp := &resp.Topics[i].Partitions[j]; rp.Partition == partition {
				return rp, nil
			}
		}
	}
	return nil, fmt.Errorf("fetch response without partition %d", partition)
}

// readSpan emits every record of one partition in [begin, end), in offset order.
func (r *reader) readSpan(ctx context.Context, s span) (int64, error) {
	var emitted int64
	offset := s.begin
	var l leader
	known := false
	lastProgress := time.Now()
	var lastErr error
	isolation := kgo.ReadUncommitted()
	if r.cfg.readCommitted {
		isolation = kgo.ReadCommitted()
	}
	for offset < s.end {
		if time.Since(lastProgress) > r.cfg.stallTimeout {
			return emitted, fmt.Errorf("partition %d made no progress for %s at offset %d (end %d): %v", s.partition, r.cfg.stallTimeout, offset, s.end, lastErr)
		}
		if !known {
			var err error
			if l, err = r.lookup(ctx, s.partition); err != nil {
				if !retriable(err) {
					return emitted, err
				}
				lastErr = err
				pause(ctx)
				continue
			}
			known = true
		}
		rp, err := r.fetch(ctx, l, s.partition, offset)
		if err == nil {
			err = kerr.ErrorForCode(rp.ErrorCode)
		}
		if err != nil {
			if errors.Is(err, kerr.OffsetOutOfRange) {
				return emitted, fmt.Errorf("partition %d: offset %d is out of range (the log start moved past it?): %w", s.partition, offset, err)
			}
			if !retriable(err) {
				return emitted, fmt.Errorf("partition %d at offset %d: %w", s.partition, offset, err)
			}
			lastErr = err
			known = false // a new leader, or a broker back: ask the metadata again
			pause(ctx)
			continue
		}
		fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
			Offset:         offset,
			IsolationLevel: isolation,
			Topic:          r.cfg.topic,
			Partition:      s.partition,
		}, rp, r.dec, nil)
		if fp.Err != nil {
			return emitted, fmt.Errorf("partition %d at offset %d: decoding: %w", s.partition, offset, fp.Err)
		}
		for _, rec := range fp.Records {
			if rec.Offset >= s.end {
				break
			}
			if err := r.out.record(rec); err != nil {
				return emitted, err
			}
			emitted++
		}
		if next > offset {
			offset = next
			lastProgress = time.Now()
		} else {
			// An empty answer below the end: the leader's log is not there yet (a follower became
			// leader and is behind), or the end is past what it can serve. Wait and ask again.
			lastErr = fmt.Errorf("no records at offset %d (high watermark %d, last stable offset %d)", offset, rp.HighWatermark, rp.LastStableOffset)
			pause(ctx)
		}
	}
	return emitted, nil
}

func retriable(err error) bool {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Retriable || errors.Is(err, kerr.NotLeaderForPartition) || errors.Is(err, kerr.FencedLeaderEpoch) || errors.Is(err, kerr.UnknownLeaderEpoch)
	}
	// Network errors, a broker restarting, a closed connection.
	return !errors.Is(err, context.Canceled)
}

func pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(250 * time.Millisecond):
	}
}

func run(ctx context.Context, cfg config, stdout io.Writer) error {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.bootstrap...),
		kgo.ClientID(cfg.clientID),
	)
	if err != nil {
		return err
	}
	defer cl.Close()
	w := bufio.NewWriterSize(stdout, 1<<20)
	r := &reader{cfg: cfg, cl: cl, dec: kgo.DefaultDecompressor(), out: newFrameWriter(w, cfg)}
	var total int64
	for _, s := range cfg.spans {
		n, err := r.readSpan(ctx, s)
		if err != nil {
			return err
		}
		if err := r.out.partitionDone(s, n); err != nil {
			return err
		}
		total += n
	}
	if err := r.out.done(total); err != nil {
		return err
	}
	return w.Flush()
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "topic-reader: %s\n", err)
		os.Exit(exitUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "topic-reader: topic %s: %s\n", cfg.topic, err)
		stop()
		os.Exit(exitFailure)
	}
}
