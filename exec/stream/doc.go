// Package stream is the streaming engine: executors that maintain
// materialized views incrementally, the actors that run them, the channels
// and dispatchers between actors, and the barrier protocol that cuts the
// streams into epochs.
//
// # Actors and ownership
//
// An actor is one goroutine, owned by the Graph that started it, running a
// pipeline of executors (Executor.Next pulls from the input); its output goes
// to a dispatcher that sends each message to the receivers of downstream
// actors. Between actors messages travel on bounded channels (back-pressure).
//
// # Epochs and state
//
// Each actor has a StateContext holding the Pebble write batch of the
// current epoch. Executors stage their state changes in it and read through
// it (reads see committed state plus the batch). When a barrier leaves the
// actor, the batch is handed to the coordinator, which commits every actor's
// batch for the epoch atomically, with the committed-epoch record, in one
// synced Pebble batch. The actor waits for that commit before it reads or
// writes state for the next epoch.
//
// # Invariants
//
//   - I1 alignment: an executor with several inputs forwards barrier E only
//     after it has received E on every input.
//   - I5 upstream end: an input that ends without a barrier is an error.
package stream
