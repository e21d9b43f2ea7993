package kafka

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// SinkWriter produces a sink's batches to its topic, with kgo.
//
// At least once, it produces a batch's messages and returns once Kafka
// has acknowledged all of them (kgo's idempotent producer, acks=all):
// the caller then records the batch as delivered in Pebble.
//
// Exactly once, each batch is one Kafka transaction (kgo.TransactionalID,
// stable per sink) holding the batch's messages and a transactional
// offset commit, for the consumer group named by the transactional id,
// of offset = the batch's number on the topic's partition 0, with
// metadata naming the batch: the broker commits both or neither. Open
// first initializes the producer id, which fences an older producer of
// the same id and aborts a transaction it left open, then reads the
// group's committed offset back: the last batch Kafka holds, after which
// delivery resumes. A crash before the commit loses nothing (the
// aborted messages are invisible to read_committed consumers and the
// batch is sent again); one after it repeats nothing.
type SinkWriter struct {
	o   SinkOptions
	enc *SinkEncoder
	cl  *kgo.Client
	// topicID is the topic's id, for the requests that name topics by
	// id in their newest versions.
	topicID [16]byte
	msgs    []SinkMessage
	recs    []*kgo.Record
}

// sinkCommitMeta starts the metadata of an exactly-once sink's offset
// commit.
const sinkCommitMeta = "streamdb-sink batch "

// NewSinkWriter returns the writer of a sink with options o whose
// messages carry cols, keyed by key.
func NewSinkWriter(o SinkOptions, cols, key []SinkColumn) *SinkWriter {
	return &SinkWriter{o: o, enc: NewSinkEncoder(o, cols, key)}
}

// Open connects and, exactly once, returns the last batch the topic
// holds (ok true).
func (w *SinkWriter) Open(ctx context.Context) (int64, bool, error) {
	if w.cl == nil {
		opts := []kgo.Opt{kgo.SeedBrokers(w.o.Brokers...), kgo.DefaultProduceTopic(w.o.Topic),
			kgo.RequiredAcks(kgo.AllISRAcks())}
		if w.o.ExactlyOnce {
			opts = append(opts, kgo.TransactionalID(w.o.TransactionalID), kgo.TransactionTimeout(time.Minute))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return 0, false, err
		}
		w.cl = cl
	}
	id, err := topicID(ctx, w.cl, w.o.Topic)
	if err != nil {
		return 0, false, err
	}
	w.topicID = id
	if !w.o.ExactlyOnce {
		return 0, false, nil
	}
	if _, _, err := w.cl.ProducerID(ctx); err != nil {
		return 0, false, fmt.Errorf("initializing the transactional producer %q: %w", w.o.TransactionalID, err)
	}
	last, err := w.committedBatch(ctx)
	return last, err == nil, err
}

// Write delivers one batch: n changes, at(i) the i-th.
func (w *SinkWriter) Write(ctx context.Context, seq int64, n int, at func(i int) (chunk.Op, []types.Datum)) (int, error) {
	w.msgs = w.enc.Encode(w.msgs[:0], n, at, time.Now().UnixMilli())
	if err := w.enc.Err(); err != nil {
		return 0, err
	}
	if len(w.msgs) == 0 {
		return 0, nil
	}
	w.recs = w.recs[:0]
	for _, m := range w.msgs {
		w.recs = append(w.recs, &kgo.Record{Key: m.Key, Value: m.Value})
	}
	if !w.o.ExactlyOnce {
		if err := w.cl.ProduceSync(ctx, w.recs...).FirstErr(); err != nil {
			return 0, err
		}
		return len(w.recs), nil
	}
	if err := w.transact(ctx, seq); err != nil {
		// Whatever went out is aborted: the batch is sent again.
		abortCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if aerr := w.cl.AbortBufferedRecords(abortCtx); aerr == nil {
			_ = w.cl.EndTransaction(abortCtx, kgo.TryAbort)
		}
		return 0, err
	}
	return len(w.recs), nil
}

// transact produces the batch and its offset commit in one transaction
// and commits it.
func (w *SinkWriter) transact(ctx context.Context, seq int64) error {
	if err := w.cl.BeginTransaction(); err != nil {
		return err
	}
	if err := w.cl.ProduceSync(ctx, w.recs...).FirstErr(); err != nil {
		return err
	}
	if err := w.commitBatch(ctx, seq); err != nil {
		return fmt.Errorf("committing batch %d with the transaction: %w", seq, err)
	}
	return w.cl.EndTransaction(ctx, kgo.TryCommit)
}

// commitBatch adds the offset commit that records batch seq to the
// transaction.
func (w *SinkWriter) commitBatch(ctx context.Context, seq int64) error {
	pid, epoch, err := w.cl.ProducerID(ctx)
	if err != nil {
		return err
	}
	add := kmsg.NewPtrAddOffsetsToTxnRequest()
	add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = w.o.TransactionalID, pid, epoch, w.o.TransactionalID
	addResp, err := add.RequestWith(ctx, w.cl)
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(addResp.ErrorCode); err != nil {
		return err
	}
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = w.o.TransactionalID, w.o.TransactionalID, pid, epoch
	req.Generation, req.MemberID = -1, ""
	t := kmsg.NewTxnOffsetCommitRequestTopic()
	t.Topic, t.TopicID = w.o.Topic, w.topicID
	p := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	meta := sinkCommitMeta + strconv.FormatInt(seq, 10)
	p.Partition, p.Offset, p.LeaderEpoch, p.Metadata = 0, seq, -1, &meta
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, w.cl)
	if err != nil {
		return err
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				return err
			}
		}
	}
	return nil
}

// committedBatch reads the last batch committed with a transaction (0:
// none yet), waiting out an offset commit still pending in a
// transaction that is being aborted or committed.
func (w *SinkWriter) committedBatch(ctx context.Context) (int64, error) {
	for {
		last, err := w.fetchCommitted(ctx)
		if !errors.Is(err, kerr.UnstableOffsetCommit) {
			return last, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (w *SinkWriter) fetchCommitted(ctx context.Context) (int64, error) {
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group, req.RequireStable = w.o.TransactionalID, true
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic, rt.Partitions = w.o.Topic, []int32{0}
	req.Topics = append(req.Topics, rt)
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group = w.o.TransactionalID
	gt := kmsg.NewOffsetFetchRequestGroupTopic()
	gt.Topic, gt.TopicID, gt.Partitions = w.o.Topic, w.topicID, []int32{0}
	g.Topics = append(g.Topics, gt)
	req.Groups = append(req.Groups, g)
	resp, err := req.RequestWith(ctx, w.cl)
	if err != nil {
		return 0, err
	}
	if err := noGroup(kerr.ErrorForCode(resp.ErrorCode)); err != nil {
		return 0, err
	}
	var parts []kmsg.OffsetFetchResponseGroupTopicPartition
	for _, rg := range resp.Groups {
		if err := noGroup(kerr.ErrorForCode(rg.ErrorCode)); err != nil {
			return 0, err
		}
		for _, t := range rg.Topics {
			parts = append(parts, t.Partitions...)
		}
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, kmsg.OffsetFetchResponseGroupTopicPartition{Partition: p.Partition,
				Offset: p.Offset, Metadata: p.Metadata, ErrorCode: p.ErrorCode})
		}
	}
	for _, p := range parts {
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
			return 0, err
		}
		if p.Partition == 0 && p.Offset >= 0 && p.Metadata != nil && strings.HasPrefix(*p.Metadata, sinkCommitMeta) {
			return p.Offset, nil
		}
	}
	return 0, nil
}

// noGroup drops the error of a group that does not exist yet: no batch
// has been committed.
func noGroup(err error) error {
	if errors.Is(err, kerr.GroupIDNotFound) {
		return nil
	}
	return err
}

// Close closes the client (exactly once, a transaction left open is
// aborted by the next Open's producer id, or the broker's timeout).
func (w *SinkWriter) Close() {
	if w.cl != nil {
		w.cl.Close()
		w.cl = nil
	}
}

// topicID checks that topic exists and returns its id (42704-worthy
// ErrUnknownTopic when it does not).
func topicID(ctx context.Context, cl *kgo.Client, topic string) ([16]byte, error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return [16]byte{}, err
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return [16]byte{}, fmt.Errorf("%w: %q", ErrUnknownTopic, topic)
			}
			return [16]byte{}, err
		}
		return t.TopicID, nil
	}
	return [16]byte{}, fmt.Errorf("%w: %q", ErrUnknownTopic, topic)
}
