# Guest part of placement (sourced by the guest's /init; see placement.host.sh).
# The model: a recording of this guest in which the two pci-testdev functions
# (1b36:0005, one behind each node's expander bridge) are made NVIDIA 3D
# controllers, so the model has a GPU on node 0 and one on node 1 whose
# locality is the guest's real one.  Every binding below acts on this guest.
REC=/tmp/rec
TP="/bin/touch_pages 64"
run record gpufeed record $REC --nvml=off
G0='' G1=''
begin fake-gpus
for p in /sys/bus/pci/devices/*; do
	[ "$(cat $p/vendor):$(cat $p/device)" = "0x1b36:0x0005" ] || continue
	bdf=${p##*/} node=$(cat $p/numa_node)
	r=$REC/sys/bus/pci/devices/$bdf
	echo 0x10de >$r/vendor && echo 0x2330 >$r/device && echo 0x030200 >$r/class || echo "GF-WARN cannot edit $r"
	echo "GF-GPU bdf=$bdf numa_node=$node local_cpulist=$(cat $p/local_cpulist)"
	[ "$node" = 0 ] && G0=$bdf
	[ "$node" = 1 ] && G1=$bdf
done
end fake-gpus 0
run model-json gpufeed topo --root $REC --json
run model-text gpufeed topo --root $REC

# Without gpufeed: first touch on whatever CPU it runs on (information).
run nobind $TP
# gpufeed run: CPUs of the GPU's node, memory by each policy.
run bind-g1 gpufeed run --root $REC --gpu $G1 --mem bind -- $TP
run bind-g0 gpufeed run --root $REC --gpu $G0 --mem bind -- $TP
run bind-index1 gpufeed run --root $REC --gpu 1 --mem bind -- $TP
run preferred-g1 gpufeed run --root $REC --gpu $G1 --mem preferred -- $TP
run interleave-g1 gpufeed run --root $REC --gpu $G1 --mem interleave -- $TP
run interleave-both gpufeed run --root $REC --gpu $G0,$G1 --mem interleave -- $TP
run exit-code gpufeed run --root $REC --gpu $G1 -- sh -c 'exit 7'

# gpufeed verify on live processes: hold NAME CMD... starts CMD (touch_pages
# --hold) and waits for its "ready"; HPID is then the process to look at.
hold() {
	local name=$1 i=0; shift
	"$@" >/tmp/$name.out 2>/tmp/$name.err &
	HPID=$!
	while [ $i -lt 300 ] && kill -0 $HPID 2>/dev/null && ! grep -q '^ready$' /tmp/$name.out; do
		sleep 0.1; i=$((i + 1))
	done
	begin $name; cat /tmp/$name.out; end $name 0
	begin $name.stderr; cat /tmp/$name.err; end $name.stderr 0
}
unhold() { kill $HPID; wait $HPID 2>/dev/null; }
# Placed by gpufeed run for the node-1 GPU: right.
hold held-right gpufeed run --root $REC --gpu $G1 --mem bind -- $TP --hold
run verify-right gpufeed verify $HPID --model $REC --gpu $G1
run verify-right-json gpufeed verify $HPID --model $REC --gpu $G1 --json
unhold
# Placed by hand on node 0 (what numactl --physcpubind=0 --membind=0 does): wrong.
hold held-wrong /bin/touch_pages 64 --cpu 0 --bind 0 --hold
run verify-wrong gpufeed verify $HPID --model $REC --gpu $G1
run verify-wrong-json gpufeed verify $HPID --model $REC --gpu $G1 --json
unhold
# Bound by gpufeed run to the node-0 GPU, checked against the node-1 GPU: wrong.
hold held-other gpufeed run --root $REC --gpu $G0 --mem bind -- $TP --hold
run verify-other gpufeed verify $HPID --model $REC --gpu $G1
run verify-other-g0 gpufeed verify $HPID --model $REC --gpu $G0
unhold
# verify --self under run: the binding as the bound process sees it.
run verify-self gpufeed run --root $REC --gpu $G1 -- gpufeed verify --self --model $REC --gpu $G1
