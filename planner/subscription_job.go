package planner

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// BuildSubscriptionJob builds the actor of subscription rel (a
// catalog.KindSubscription reading relation rel.Deps[0]): one actor that
// follows every change of the relation from the barrier that attaches it
// (no backfill: a subscription starts from now) and appends it to the
// subscription's log (stream.SubscriptionLog). fresh says the
// subscription is new, attached by an Add barrier; a rebuild is not.
func BuildSubscriptionJob(rel *catalog.Relation, env StreamEnv, fresh bool) (*StreamJob, error) {
	if len(rel.Deps) != 1 {
		return nil, fmt.Errorf("planner: subscription %q follows %d relations", rel.Name, len(rel.Deps))
	}
	up, ok := env.Relation(rel.Deps[0])
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %d of subscription %q does not exist", rel.Deps[0], rel.Name)
	}
	b := &jobBuilder{env: env, mode: Follow, jobID: rel.ID, par: 1, scans: 1, job: &StreamJob{}}
	f, err := b.buildScan(ScanOf(up))
	if err != nil {
		return nil, err
	}
	ids := b.stateTableIDs(2)
	tables := stream.NewSubscriptionTables(ids[0], ids[1], up.ColumnTypes())
	f.ops = append(f.ops, "SubscriptionLog "+rel.Name)
	f.mapExecs(func(i int, in stream.Executor) stream.Executor {
		return stream.NewSubscriptionLog(in, f.actors[i].State, tables, rel.Retention, fresh)
	})
	f.finish()
	b.job.Tops, b.job.TopVnodes = f.actors, slices.Clone(f.vnodes)
	for _, fr := range b.frags {
		b.job.Fragments = append(b.job.Fragments, fr.describe())
	}
	return b.job, nil
}

// SubscriptionTables returns the state tables of subscription rel, whose
// relation has the given column types: the last two of rel.Internal (see
// BuildSubscriptionJob).
func SubscriptionTables(rel *catalog.Relation, up *catalog.Relation) (*stream.SubscriptionTables, error) {
	n := len(rel.Internal)
	if n < 2 {
		return nil, fmt.Errorf("planner: subscription %q has no log", rel.Name)
	}
	return stream.NewSubscriptionTables(rel.Internal[n-2], rel.Internal[n-1], up.ColumnTypes()), nil
}
