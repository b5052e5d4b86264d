-- wrk script for scripts/load-test.sh: each connection is a sync client doing what the Ferry
-- client does against one store, in a cycle of ten requests:
--   7 no-op syncs (GET store info: all an up-to-date sync costs),
--   1 incremental pull (POST /changes after a position, with knowledge),
--   1 knowledge read (before a push),
--   1 push of one new change (applied atomically, durable), signed beforehand by load-test.sh:
--     each from an origin of its own, since a thread's connections answer out of order and one
--     origin's changes must arrive in order.
-- Every answer must be 2xx; wrk counts anything else as an error.
local token = os.getenv("FERRY_TOKEN") or ""
local store = os.getenv("FERRY_STORE") or "load"
local headers = { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }
local threads = {}
local counter = 0
local pushes = {}

function setup(thread)
    thread:set("id", #threads + 1)
    table.insert(threads, thread)
end

function init(args)
    step = 0
    counter = 0
    -- Thread `id` takes its share of the pre-signed pushes (FERRY_THREADS threads in all).
    local file = os.getenv("FERRY_PUSHES")
    local count = tonumber(os.getenv("FERRY_THREADS") or "2")
    local index = 0
    if file then
        for line in io.lines(file) do
            index = index + 1
            if index % count == id % count then table.insert(pushes, line) end
        end
    end
end

function request()
    step = step + 1
    local phase = step % 10
    local base = "/v1/stores/" .. store
    if phase == 7 then
        local body = string.format('{"after":%d,"limit":100,"knowledge":{}}', math.max(0, counter * 4 - 50))
        return wrk.format("POST", base .. "/changes", headers, body)
    elseif phase == 8 then
        return wrk.format("GET", base .. "/knowledge", headers)
    elseif phase == 9 and counter < #pushes then
        counter = counter + 1
        return wrk.format("POST", base .. "/push", headers, pushes[counter])
    end
    return wrk.format("GET", base, headers)
end

function done(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format("requests %d\n", summary.requests))
    io.write(string.format("errors connect=%d read=%d write=%d status=%d timeout=%d\n",
        errors.connect, errors.read, errors.write, errors.status, errors.timeout))
    io.write(string.format("latency_p50_ms %.2f\n", latency:percentile(50) / 1000))
    io.write(string.format("latency_p99_ms %.2f\n", latency:percentile(99) / 1000))
    io.write(string.format("latency_max_ms %.2f\n", latency.max / 1000))
end
