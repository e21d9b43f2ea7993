package distsim

import (
	"fmt"
	"maps"
	"slices"
)

// The checks. The oracle is the input topic itself: the records the
// scheduler wrote, evaluated directly, never through the simulated
// processes.

// expected returns the aggregate, per key of vnode range q, of the input
// records that the state at aligned epoch a holds: from each source
// partition, the records read before that partition's first committed
// barrier at or after a (a = 0: none). The barriers' offsets are the
// partition's committed-offset history (each commits in the transaction
// of its barrier).
func (s *Sim) expected(q int, a uint64) (map[int64]aggValue, error) {
	exp := map[int64]aggValue{}
	for i := range s.cfg.SrcParts {
		in := tp{topicInput, i}
		bound := int64(-1)
		if a == 0 {
			bound = 0
		}
		for _, h := range s.b.group.history[in] {
			if bound >= 0 {
				break
			}
			if h.Epoch >= a {
				bound = h.Offset
			}
		}
		if bound < 0 {
			return nil, fmt.Errorf("no committed barrier of input partition %d at or after epoch %d", i, a)
		}
		recs, _ := s.b.Fetch(in, 0, int(bound), false)
		for _, r := range recs {
			if s.partitionOf(r.Key) == q {
				v := exp[r.Key]
				v.Count++
				v.Sum += r.Val
				exp[r.Key] = v
			}
		}
	}
	return exp, nil
}

// checkState is I6: the state of aggregate q at its committed epoch a,
// just committed or just restored from the changelog, is the query over
// exactly the input that epoch covers.
func (s *Sim) checkState(what string, p *process, q int, a uint64, state map[int64]aggValue) {
	if s.cfg.Checks&CheckState == 0 {
		return
	}
	s.stats.StateChecks++
	exp, err := s.expected(q, a)
	if err != nil {
		s.fail(fmt.Errorf("I6: %v agg %d %s at epoch %d: %w", p, q, what, a, err))
		return
	}
	if !maps.Equal(exp, state) {
		s.fail(fmt.Errorf("I6: %v agg %d state after %s at epoch %d is not the query over the input of the epoch:\n%s",
			p, q, what, a, diff(exp, state)))
	}
}

// finalChecks run once the system is quiet.
func (s *Sim) finalChecks() {
	s.checkOutput()
	for q := range s.cfg.AggParts {
		a := s.b.group.offsets[tp{topicRepart, q}].Epoch
		s.checkState("the end", &process{instance: -1}, q, a, s.restore(q))
	}
	s.checkZombies()
}

// checkOutput is I3: the output, read_committed and folded by key (the
// sum of the changes, and the last aggregate written), is the query over
// the whole input: every input record counted exactly once.
func (s *Sim) checkOutput() {
	if s.cfg.Checks&CheckOutput == 0 {
		return
	}
	exp := map[int64]aggValue{}
	for i := range s.cfg.SrcParts {
		for _, r := range s.b.FetchAll(tp{topicInput, i}) {
			v := exp[r.Key]
			v.Count++
			v.Sum += r.Val
			exp[r.Key] = v
		}
	}
	deltas, last := map[int64]aggValue{}, map[int64]aggValue{}
	for q := range s.cfg.AggParts {
		for _, r := range s.b.FetchAll(tp{topicOutput, q}) {
			if s.partitionOf(r.Key) != q {
				s.fail(fmt.Errorf("I4: output of key %d in partition %d", r.Key, q))
			}
			d := deltas[r.Key]
			d.Count += r.DCount
			d.Sum += r.DSum
			deltas[r.Key] = d
			last[r.Key] = aggValue{r.Count, r.Sum}
		}
	}
	if !maps.Equal(exp, deltas) {
		s.fail(fmt.Errorf("I3: the output's changes, summed by key, are not the query over the input:\n%s", diff(exp, deltas)))
	}
	if !maps.Equal(exp, last) {
		s.fail(fmt.Errorf("I3: the output's last aggregate per key is not the query over the input:\n%s", diff(exp, last)))
	}
}

// checkZombies: no transaction a zombie committed is visible. A
// transaction commits only while its producer's epoch is current (not
// after a newer incarnation initialized it or it timed out), and its
// offsets count only if sent while its process was in the group's
// generation: offsets sent before an expulsion may still commit, which
// is safe because the new owner waits for that transaction
// (UNSTABLE_OFFSET_COMMIT).
func (s *Sim) checkZombies() {
	if s.cfg.Checks&CheckZombies == 0 {
		return
	}
	for _, x := range s.b.txns {
		if x.state != txnCommitted {
			continue
		}
		p := s.procs[x.owner]
		if p.supersededAt >= 0 && x.ended >= p.supersededAt {
			s.fail(fmt.Errorf("zombie: %v committed transaction %d (%d records) at t=%d, superseded at t=%d",
				p, x.id, x.records, x.ended, p.supersededAt))
		}
		if p.expelledAt >= 0 && x.sent >= p.expelledAt {
			s.fail(fmt.Errorf("zombie: %v sent offsets at t=%d, expelled at t=%d, and transaction %d committed",
				p, x.sent, p.expelledAt, x.id))
		}
	}
}

// diff lists the keys whose values differ.
func diff(exp, got map[int64]aggValue) string {
	keys := slices.Collect(maps.Keys(exp))
	for k := range got {
		if _, ok := exp[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := ""
	for _, k := range keys {
		e, eok := exp[k]
		g, gok := got[k]
		if e != g || eok != gok {
			out += fmt.Sprintf("  key %d: want %+v (present %v), got %+v (present %v)\n", k, e, eok, g, gok)
		}
	}
	return out
}
