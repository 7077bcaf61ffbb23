#!/usr/bin/env node
// The package's `exchange` bin: runs the compiled entry (npm ci builds it via `prepare`).
import '../dist/bin/main.js'
