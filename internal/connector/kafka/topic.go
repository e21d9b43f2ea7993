package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// sqlstateConnection is SQLSTATE 08001, sqlclient_unable_to_establish_
// sqlconnection: the brokers did not answer.
const sqlstateConnection = "08001"

// ErrUnknownTopic is the error of a topic the cluster does not have.
var ErrUnknownTopic = errors.New("kafka: unknown topic")

// Resolve checks, at CREATE, that o's topic exists (one metadata request,
// bounded by timeout: 42704 when it does not, 08001 when no broker
// answers) and returns the first offset of each of its partitions under
// o's startup mode: the log start (earliest), the end (latest) or the
// first message at or after o.StartMillis.
func Resolve(ctx context.Context, o Options, timeout time.Duration) (map[int32]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(o.Brokers...), kgo.RequestRetries(2))
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "kafka: %v", err)
	}
	defer cl.Close()
	parts, err := partitions(ctx, cl, o.Topic)
	switch {
	case errors.Is(err, ErrUnknownTopic):
		e := pgerr.New(pgerr.UndefinedObject, "kafka topic %q does not exist", o.Topic)
		e.Hint = "Create the topic first: a source does not create it."
		return nil, e
	case err != nil:
		return nil, pgerr.New(sqlstateConnection, "kafka: cannot read the metadata of topic %q from %v: %v", o.Topic, o.Brokers, err)
	}
	ts := int64(-2) // earliest
	switch o.Startup {
	case StartLatest:
		ts = -1
	case StartTimestamp:
		ts = o.StartMillis
	}
	offsets, err := listOffsets(ctx, cl, o.Topic, parts, ts)
	if err != nil {
		return nil, pgerr.New(sqlstateConnection, "kafka: listing the offsets of topic %q: %v", o.Topic, err)
	}
	if ts >= 0 {
		// A partition with no message at or after the time starts at
		// its end.
		ends, err := listOffsets(ctx, cl, o.Topic, parts, -1)
		if err != nil {
			return nil, pgerr.New(sqlstateConnection, "kafka: listing the offsets of topic %q: %v", o.Topic, err)
		}
		for p, off := range offsets {
			if off < 0 {
				offsets[p] = ends[p]
			}
		}
	}
	return offsets, nil
}

// partitions returns the partitions of topic, from one metadata request.
func partitions(ctx context.Context, cl *kgo.Client, topic string) ([]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return nil, ErrUnknownTopic
			}
			return nil, err
		}
		out := make([]int32, 0, len(t.Partitions))
		for _, p := range t.Partitions {
			out = append(out, p.Partition)
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out, nil
	}
	return nil, ErrUnknownTopic
}

// listOffsets asks each partition's leader for the offset at ts (-1: the
// end, -2: the start, else a time in ms: -1 in the result when no
// message is that late).
func listOffsets(ctx context.Context, cl *kgo.Client, topic string, parts []int32, ts int64) (map[int32]int64, error) {
	return listOffsetsAt(ctx, cl, topic, parts, ts, 0)
}

// listStableEnds returns each partition's last stable offset: the end a
// read_committed consumer reads up to (the offsets below it are decided:
// committed, aborted or not transactional).
func listStableEnds(ctx context.Context, cl *kgo.Client, topic string, parts []int32) (map[int32]int64, error) {
	return listOffsetsAt(ctx, cl, topic, parts, -1, 1)
}

// listOffsetsAt is listOffsets under an isolation level (1: read_committed).
func listOffsetsAt(ctx context.Context, cl *kgo.Client, topic string, parts []int32, ts int64, isolation int8) (map[int32]int64, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.IsolationLevel = isolation
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	for _, p := range parts {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p, ts, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	out := make(map[int32]int64, len(parts))
	for _, shard := range cl.RequestSharded(ctx, req) {
		if shard.Err != nil {
			return nil, shard.Err
		}
		for _, t := range shard.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return nil, fmt.Errorf("partition %d: %w", p.Partition, err)
				}
				out[p.Partition] = p.Offset
			}
		}
	}
	for _, p := range parts {
		if _, ok := out[p]; !ok {
			return nil, fmt.Errorf("partition %d: no offset in the answer", p)
		}
	}
	return out, nil
}
