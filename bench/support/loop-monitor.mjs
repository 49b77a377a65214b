// Loaded into the benchmarked server with `--import`: it watches the event
// loop's delay (perf_hooks' histogram, 10 ms resolution) and, on SIGUSR2,
// writes the delays since the last signal to LOOP_MONITOR_FILE as JSON
// (milliseconds) and starts afresh. The server's own code is untouched.
import fs from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
const ms = (nanoseconds) => nanoseconds / 1e6;

process.on("SIGUSR2", () => {
  const file = process.env.LOOP_MONITOR_FILE;
  const report = {
    p50: ms(histogram.percentile(50)),
    p90: ms(histogram.percentile(90)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    samples: histogram.count,
  };
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(report));
  fs.renameSync(`${file}.tmp`, file);
  histogram.reset();
});
