"""The simulator's ECMP choice, reimplemented bit for bit.

FabricFlowHash (contrib/fabric/model/switch/fabric-switch.cc) mixes the salt and the 5-tuple with
MurmurHash3's 32-bit finalizer; a switch sends a flow to group[hash % len(group)]. The builder
(fabric-builder.cc) salts switch node i with hash_salt * 2654435761 + i * 40503 + 1, and the
runner (scenario-runner.cc) gives flow i the UDP source port
49152 + mix64((i << 32) ^ seed) % 16384 (FlowEntropy in scenario-runner.cc). Hosts are 10.0.0.1 + index.
UB frames are hashed on their entropy (the UDP source port) alone: Mix32(Mix32(salt ^ 0x9e3779b9)
^ srcPort); oblivious spraying (ub-load-balancer.h) sends packet k of a channel with entropy
Port(base, k mod E) = 49152 + (base − 49152 + k mod E) % 16384, base = the flow's entropy.
"""

M32 = 0xFFFFFFFF
ROCE_UDP_PORT = 4791
UDP = 17


def mix32(h: int) -> int:
    h &= M32
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    h ^= h >> 16
    return h


def flow_hash(salt, src_ip, dst_ip, src_port, dst_port=ROCE_UDP_PORT, proto=UDP) -> int:
    h = mix32((salt & M32) ^ 0x9E3779B9)
    h = mix32(h ^ src_ip)
    h = mix32(h ^ dst_ip)
    h = mix32(h ^ (((src_port & 0xFFFF) << 16) | (dst_port & 0xFFFF)))
    h = mix32(h ^ proto)
    return h


def ub_entropy_hash(salt, entropy) -> int:
    """FabricFlowHash for a UB frame: the entropy (UDP source port) alone, salted per switch."""
    return mix32(mix32((salt & M32) ^ 0x9E3779B9) ^ (entropy & 0xFFFF))


def ub_spray_entropy(base: int, i: int) -> int:
    """UbLoadBalancer::Port(base, i): the i-th entropy of oblivious spraying above the base."""
    return 49152 + (base - 49152 + i) % 16384


def host_ip(index: int) -> int:
    return (0x0A000001 + index) & M32


def switch_salt(hash_salt: int, node_index: int) -> int:
    return (hash_salt * 2654435761 + node_index * 40503 + 1) & M32


def flow_entropy(flow_id: int, seed: int) -> int:
    """FlowEntropy() of scenario-runner.cc: a 64-bit mix of (flow id << 32) ^ seed."""
    m64 = (1 << 64) - 1
    h = ((flow_id << 32) ^ seed) & m64
    h ^= h >> 33
    h = (h * 0xff51afd7ed558ccd) & m64
    h ^= h >> 33
    h = (h * 0xc4ceb9fe1a85ec53) & m64
    h ^= h >> 33
    return 49152 + h % 16384


def uplink_index(salt, src_host, dst_host, src_port, m) -> int:
    return flow_hash(salt, host_ip(src_host), host_ip(dst_host), src_port) % m
