# Guest part of bench-mem (sourced by the guest's /init; see bench-mem.host.sh):
# `gpufeed bench mem` across the guest's two nodes, small and short: TCG
# figures mean nothing, the matrix's shape and the pages' nodes do.
run mem-json gpufeed bench mem --quick --size 16M --repeats 2 --json
run mem-text gpufeed bench mem --quick --size 16M --repeats 1 --quiet
run mem-n1 gpufeed bench mem --quick --size 8M --repeats 1 --nodes 1 --json
run mem-absent gpufeed bench mem --quick --nodes 0,5 --json
