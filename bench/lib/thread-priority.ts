// The open loop's load generator stands in for clients on machines of their own, whose sends
// the exchange's work cannot hold up. Sharing two cores with the exchange, its thread waited
// for a core (p99 ~2.7 ms late at 5,000/s), and that wait counted in the exchange's latency.
// A thread's nice value is its own on Linux (setpriority on its thread id), so the generator
// and its pacer raise theirs for the open loop alone; the closed loops share the cores as
// equals. Raising a priority takes root or CAP_SYS_NICE: without either, nothing changes and
// the bench says so.

export { setThreadNice } from '../../replica/thread-priority.js'

/** The nice value the open loop's generator threads ask for (-20 highest, 0 normal). */
export const OPEN_LOOP_NICE = -10
