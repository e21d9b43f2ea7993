package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/internal/connector"
)

// Retention while a reader runs.
//
// The reader's client is built with kgo.ConsumeResetOffset(
// kgo.NoResetOffset()): when a fetch asks for an offset the broker no
// longer has (the topic's retention deleted the segment while the reader
// was behind: paused, rate-limited, or the brokers unreachable), kgo
// does not move the partition by itself, which would skip the deleted
// messages without a trace, but returns kerr.OffsetOutOfRange for it in
// the poll's fetches and stops fetching it. The reader then lists the
// partition's log start and, when the offset it wanted (its position:
// the offset after the last record it handed over) is below it, hands
// over a LostError record at the range's last offset, as skipDeleted
// does at a start, and moves the partition to the log start
// (Client.SetOffsets). The source counts and keeps that record like a
// malformed message, in the epoch's batch with the offset past it, so
// the range is reported once: an epoch that did not commit is replayed
// from the offset before the range, and the reader (skipDeleted at its
// start) reports the same range again, under the same key.
//
// An offset out of range that is not below the log start (the log was
// truncated under the reader, or the topic recreated) names no range
// that is known lost: the reader says so in its state and tries the
// same offset again after a second; nothing is skipped silently.

// outOfRangeRetry is how long the reader waits before it fetches again
// an offset out of range that is not below the log start.
const outOfRangeRetry = time.Second

// outOfRange returns the partitions of fs whose fetch failed with
// OffsetOutOfRange, in order.
func outOfRange(fs kgo.Fetches, topic string) []int32 {
	var parts []int32
	fs.EachError(func(t string, p int32, err error) {
		if t == topic && errors.Is(err, kerr.OffsetOutOfRange) {
			parts = append(parts, p)
		}
	})
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	return parts
}

// advance records the position of each partition past the records of
// batch: the offset a fetch of that partition asks for next.
func (a *assigner) advance(batch []connector.SplitRecord) {
	for i := range batch {
		if next := batch[i].Offset + 1; next > a.pos[batch[i].Split] {
			a.pos[batch[i].Split] = next
		}
	}
}

// recoverOutOfRange moves each partition of parts (whose fetch failed
// with OffsetOutOfRange) to its log start, and returns a LostError
// record for each whose position was below it. A partition whose
// position is unknown (one created after the source, started at its
// beginning: nothing of it was read) moves without a report. It
// returns an error when the log starts could not be listed; the
// partitions stay stopped and the next poll reports them again.
func (a *assigner) recoverOutOfRange(ctx context.Context, parts []int32) ([]connector.SplitRecord, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	starts, err := listOffsets(lctx, a.cl, a.r.opts.Topic, parts, -2)
	if err != nil {
		return nil, fmt.Errorf("kafka: listing the log start offsets: %w", err)
	}
	var lost []connector.SplitRecord
	set := map[int32]kgo.EpochOffset{}
	for _, p := range parts {
		start, ok := starts[p]
		if !ok {
			continue
		}
		pos, known := a.pos[p]
		switch {
		case !known:
			set[p] = kgo.EpochOffset{Epoch: -1, Offset: start}
		case pos < start:
			lost = append(lost, connector.SplitRecord{Split: p, Offset: start - 1, Err: &LostError{Partition: p, From: pos, To: start}})
			set[p] = kgo.EpochOffset{Epoch: -1, Offset: start}
			a.pos[p] = start
		default:
			a.r.setState(fmt.Sprintf("retrying: offset %d of partition %d is out of range and not below its log start %d", pos, p, start))
			sleep(ctx, outOfRangeRetry)
			set[p] = kgo.EpochOffset{Epoch: -1, Offset: pos}
		}
	}
	if len(set) > 0 {
		a.cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{a.r.opts.Topic: set})
	}
	return lost, nil
}
