"""Step time of a 1024-accelerator training job against the size of its superpod
("Datacenter networks", chapter 7, §7.6.4; docs/models.md#superpod-size).

TP8 x DP128 of Qwen3-32B (P = 32e9 parameters, 64 layers, hidden 5120) on H100 at 41% of
989.4 TFLOP/s, 2^20 tokens per update, 8192 tokens per microbatch. A superpod of S accelerators
holds q = S/8 data-parallel members per TP coordinate; there are H = N/S superpods. The BF16
gradient shard of one accelerator is G = 2P/8. Gradient synchronisation either
  hierarchical: ReduceScatter inside the superpod, AllReduce across the H superpods, AllGather
  inside again,
    T_grad = 2(q-1) a_L + 2(q-1) G / (q B_L) + 2(H-1) a_R
             + max(2(H-1) G / (H q B_NIC), V_out / B_out),   V_out = 2 (H-1)/H 8 G
  or a flat ring over the 128 data-parallel members of a coordinate, whose one edge leaving
  each superpod runs at the NIC's rate (eight coordinates: 8 B_NIC of the superpod's exit):
    T_ring = 2(D-1) a_R + 2 (D-1)/D G / min(B_NIC, B_out / 8)
and the faster one is taken. The step is sequential:
    T_step = 6 P T_tok / (N F) + 4 L T_AR,TP + T_grad + T_update,
with T_AR,TP the ring AllReduce of the 8192-token hidden tensor in the TP group of eight over
NVLink: 14 a_L + 1.75 M / B_L.

The TP-degree sweep (§7.6.4, "revisiting the degrees of parallelism"): TP t with DP 1024/t at
the same 2^20 tokens and the same effective FLOP/s. A replica then computes 2^20 t/1024 tokens
(t/8 sequences of 8192), so each TP AllReduce carries M = 2 * 5120 * 2^20 t/1024 bytes over a
ring of t: 2(t-1) a_L + 2(t-1)/t M / B_L; the gradient shard is G = 2P/t, synchronised among
q = S/t members inside the superpod and across the H superpods as above.
"""

from dataclasses import dataclass

GB = 1e9


@dataclass(frozen=True)
class Superpod:
    accelerators: int = 1024
    parameters: float = 32e9
    layers: int = 64
    hidden: int = 5120
    tp: int = 8
    tokens: int = 2 ** 20          # per update
    microbatch_tokens: int = 8192  # per data-parallel replica
    flops: float = 989.4e12 * 0.41  # per accelerator, effective
    local_bw: float = 450 * GB      # B_L, NVLink per accelerator per direction, byte/s
    nic_bw: float = 50 * GB         # B_NIC, byte/s
    alpha_local: float = 0.83e-6    # a_L, s per round
    alpha_remote: float = 0.83e-6   # a_R, s per round
    update: float = 0.050           # s

    def shard(self):
        """G: the BF16 gradient one accelerator holds, bytes."""
        return 2 * self.parameters / self.tp

    def compute(self):
        return 6 * self.parameters * self.tokens / (self.accelerators * self.flops)

    def replica_tokens(self):
        """Tokens one data-parallel replica (a TP group) computes per update: 8192 at TP8
        (one microbatch); a larger TP group, with fewer replicas, takes more sequences."""
        return self.tokens * self.tp // self.accelerators

    def tp_time(self):
        """Four TP AllReduces per layer (forward and backward) of the hidden tensor of the
        replica's tokens (BF16: 80 MiB at TP8; TP16 carries twice as many rows, ...)."""
        m = 2 * self.replica_tokens() * self.hidden  # bytes
        n = self.tp
        one = 2 * (n - 1) * self.alpha_local + 2 * (n - 1) / n * m / self.local_bw
        return 4 * self.layers * one

    def external_volume(self, size):
        """V_out: bytes one superpod of `size` sends out per direction (hierarchical)."""
        h = self.accelerators // size
        return 2 * (h - 1) / h * self.tp * self.shard()

    def grad_hierarchical(self, size, exit_bw):
        q, h, g = size // self.tp, self.accelerators // size, self.shard()
        local = 2 * (q - 1) * self.alpha_local + 2 * (q - 1) * g / (q * self.local_bw)
        remote = 2 * (h - 1) * self.alpha_remote + max(
            2 * (h - 1) * g / (h * q * self.nic_bw), self.external_volume(size) / exit_bw)
        return local + remote

    def grad_flat_ring(self, size, exit_bw):
        d, g = self.accelerators // self.tp, self.shard()
        edge = min(self.nic_bw, exit_bw / self.tp)
        return 2 * (d - 1) * self.alpha_remote + 2 * (d - 1) / d * g / edge

    def grad(self, size, exit_bw):
        """(T_grad, algorithm): the faster of hierarchical and flat ring."""
        hier = self.grad_hierarchical(size, exit_bw)
        ring = self.grad_flat_ring(size, exit_bw)
        return (hier, "hierarchical") if hier <= ring else (ring, "flat ring")

    def step(self, size, exit_bw):
        return self.compute() + self.tp_time() + self.grad(size, exit_bw)[0] + self.update

    def throughput(self, size, exit_bw):
        return self.tokens / self.step(size, exit_bw)


def exit_scaled(model, size, oversubscription=1.0):
    """B_out when every accelerator's NIC reaches the fabric: S x B_NIC (/ oversubscription)."""
    return size * model.nic_bw / oversubscription


FIXED_EXIT = 400 * GB  # eight 400 Gbit/s links per superpod, as one HGX server
