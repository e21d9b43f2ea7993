package write

import (
	"sync/atomic"

	"github.com/streamdb/streamdb/internal/chunk"
)

// The two halves of a COPY's staging run side by side: the statement's
// goroutine reads and parses the data into the stage's column builders
// (copy_columns.go) and hands each built chunk, with its rows' lines, to
// the stage's writer goroutine (stagePipe), which encodes the rows' keys
// and values, adds them to the key runs and stages the chunk
// (copyStage.stageChunk). Each half was about half of a load's time, and
// a chunk at a time the handoff costs nothing to speak of.
//
// The writer is the stage's: started at the first chunk, joined by
// settle (which finish and a failed COPY's duplicate check call: the
// keys, runs and staged chunks are then the statement's again) and by
// close, which first tells it to drop what is still queued. An error of
// the writer is kept, stops its work (it then only releases the chunks
// it gets), and ends the statement at its next chunk or at settle; an
// error of the reader (a bad row, a cancelled statement: the reader
// checks the context) ends the writer through close. The queue is small,
// so the reader never gets far ahead and memory stays bounded.

// stagePipeDepth is how many chunks may wait for the writer.
const stagePipeDepth = 4

// stagePipe is a copyStage's writer goroutine.
type stagePipe struct {
	in     chan keyedChunk
	done   chan error // the writer's error, when in is closed and drained
	failed atomic.Bool
	abort  atomic.Bool
}

// keyedChunk is a chunk of appended rows and the lines they came from.
type keyedChunk struct {
	c     *chunk.Chunk
	lines []int64
}

// send hands c, whose rows came from lines, to the writer, starting it
// if need be; it returns the writer's error once it has failed.
func (s *copyStage) send(c *chunk.Chunk, lines []int64) error {
	if s.pipe == nil {
		s.startPipe()
	}
	if s.pipe.failed.Load() {
		c.Release()
		return s.joinPipe()
	}
	s.pipe.in <- keyedChunk{c: c, lines: lines}
	return nil
}

func (s *copyStage) startPipe() {
	p := &stagePipe{in: make(chan keyedChunk, stagePipeDepth), done: make(chan error, 1)}
	s.pipe = p
	go func() {
		var err error
		for kc := range p.in {
			if err != nil || p.abort.Load() {
				kc.c.Release()
				continue
			}
			if err = s.stageChunk(kc.c, kc.lines); err != nil {
				p.failed.Store(true)
			}
		}
		p.done <- err
	}()
}

// joinPipe waits for the writer to stage what it was sent and end, and
// returns its error.
func (s *copyStage) joinPipe() error {
	p := s.pipe
	if p == nil {
		return nil
	}
	s.pipe = nil
	close(p.in)
	return <-p.done
}

// abortPipe ends the writer, dropping the chunks not yet staged.
func (s *copyStage) abortPipe() {
	if s.pipe != nil {
		s.pipe.abort.Store(true)
		_ = s.joinPipe()
	}
}

// stageChunk encodes the keys and values of c's rows (from lines) into
// the key runs and stages c, which it takes over.
func (s *copyStage) stageChunk(c *chunk.Chunk, lines []int64) error {
	if err := s.addKeys(c, lines); err != nil {
		c.Release()
		return err
	}
	return s.held.put(c)
}
