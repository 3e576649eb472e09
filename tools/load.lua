-- A wrk script for `kalah serve`: GETs the paths of a file in turn, the
-- threads stopping once they have sent a bounded count of requests.
--
--   wrk -t2 -c8 -d10s --latency -s tools/load.lua http://127.0.0.1:8080 -- PATHS_FILE [REQUESTS [THREADS]]
--
-- Loopback only: the script refuses another host. REQUESTS (at most, and
-- by default, 100,000) is shared by the THREADS (wrk's -t, default 2);
-- wrk's -d bounds the time. wrk counts any status but 2xx and 3xx as
-- "Non-2xx or 3xx responses".
local paths, count, share = {}, 0, 0

function init(args)
  local host = wrk.host
  if host ~= "127.0.0.1" and host ~= "localhost" and host ~= "::1" then
    error("load.lua: loopback only, not " .. host)
  end
  for line in io.lines(args[1]) do
    if #line > 0 then table.insert(paths, line) end
  end
  if #paths == 0 then error("load.lua: no paths in " .. args[1]) end
  local requests = math.min(tonumber(args[2] or 100000), 100000)
  share = math.ceil(requests / tonumber(args[3] or 2))
  position = math.random(#paths)
end

function request()
  position = position % #paths + 1
  return wrk.format("GET", paths[position])
end

function response(status, headers, body)
  count = count + 1
  if count >= share then wrk.thread:stop() end
end
