"""The controlled values of the record format and the IRIs they become.

Kept as data in one place: records, conversion, shapes and importers all read it.
"""

from __future__ import annotations

from .namespaces import BG, QUDT_UNIT, UNIT

STATUS = {"draft": BG.Draft, "provisional": BG.Provisional, "verified": BG.Verified}
MEASURED_BY = {
    "first_party": BG.FirstParty,
    "vendor": BG.Vendor,
    "third_party": BG.ThirdParty,
}
ROLES = {
    "scale-up-fabric": (BG.ScaleUpFabricRole, BG.ScaleUpFabric),
    "host-link": (BG.HostLinkRole, BG.HostLink),
    "scale-out-network": (BG.ScaleOutNetworkRole, BG.ScaleOutNetwork),
}
DIRECTIONS = {"higher-is-better": BG.HigherIsBetter, "lower-is-better": BG.LowerIsBetter}
SCOPES = {"per-user": BG.PerUser, "per-accelerator": BG.PerAccelerator, "aggregate": BG.Aggregate}
PARALLELISM = {
    "tensor": BG.tensorParallelSize,
    "expert": BG.expertParallelSize,
    "pipeline": BG.pipelineParallelSize,
    "data": BG.dataParallelSize,
    "attention_data": BG.attentionDataParallelSize,
}

# Unit codes a record may use. QUDT has no unit for tokens, samples or queries per second
# or per joule, so those are benchgraph's own (declared in the ontology, related to unit:PER-SEC).
UNITS = {
    "tok/s": UNIT["TOK-PER-SEC"],
    "samples/s": UNIT["SAMPLE-PER-SEC"],
    "queries/s": UNIT["QUERY-PER-SEC"],
    # energy efficiency (importers/efficiency.py): work per joule of measured energy
    "tok/J": UNIT["TOK-PER-J"],
    "samples/J": UNIT["SAMPLE-PER-J"],
    "queries/J": UNIT["QUERY-PER-J"],
    "tok": UNIT["TOK"],
    "ns": QUDT_UNIT["NanoSEC"],
    "us": QUDT_UNIT["MicroSEC"],
    "ms": QUDT_UNIT["MilliSEC"],
    "s": QUDT_UNIT["SEC"],
    "W": QUDT_UNIT["W"],
    "J": QUDT_UNIT["J"],
    "%": QUDT_UNIT["PERCENT"],
    "GB": QUDT_UNIT["GigaBYTE"],
    "GB/s": QUDT_UNIT["GigaBYTE-PER-SEC"],
}

# Number formats named in engine settings (kv_cache_dtype: fp8_e4m3, ...): SKOS concepts.
NUMBER_FORMATS = {
    name: BG["format-" + name]
    for name in (
        "fp32",
        "tf32",
        "fp16",
        "bf16",
        "fp8",
        "fp8_e4m3",
        "fp8_e5m2",
        "fp6",
        "fp4",
        "mxfp4",
        "mxfp6",
        "mxfp8",
        "nvfp4",
        "int8",
        "int4",
        "auto",
    )
}
NUMBER_FORMATS.pop("auto")


def is_speculative_setting(name: str) -> bool:
    """Whether an engine setting configures speculative decoding (by its name)."""
    lowered = name.lower()
    return (
        lowered.startswith(
            (
                "speculative",
                "spec_",
                "num_speculative",
                "draft_",
                "dspark_",
                "eagle",
                "medusa",
                "mtp_",
            )
        )
        or "speculative" in lowered
    )


# --- the accelerator catalogue (issue 16): codes of a record and the individuals they name

# What physical form a part takes. The record format's codes; the earlier free text of
# shipped records (SXM, PCIe, ...) reads as the code it meant.
FORM_FACTORS = {
    "sxm": BG.SxmModule,
    "oam": BG.OamModule,
    "pcie-card": BG.PcieCard,
    "superchip-module": BG.SuperchipModule,
    "soc": BG.SystemOnChip,
    "mezzanine": BG.MezzanineModule,
    "other": BG.OtherFormFactor,
}
FORM_FACTOR_SPELLINGS = {"SXM": "sxm", "OAM": "oam", "PCIe": "pcie-card", "SoC": "soc"}
# What one counted accelerator is (MLPerf's and Argonne's counts count these).
COUNTED_AS = {
    "gpu": BG.CountedGpu,
    "dual-gpu-card": BG.CountedDualGpuCard,
    "multi-die-module": BG.CountedMultiDieModule,
    "chip": BG.CountedChip,
    "soc": BG.CountedSoc,
    "superchip": BG.CountedSuperchip,
}
# A host interface that is no link: the part's GPU is on the same chip or module as its host
# CPU (an SoC such as Apple's M1 Pro, a Jetson module), so no PCIe generation or NVLink-C2C
# joins them. `host_interface` otherwise names an interconnect record; this code is the one
# value that is not an id (records/schema.py leaves it out of the references).
HOST_INTERFACE_CODES = {"on-chip": BG.OnChipHost}
# The part's own GPU-to-GPU fabric, as its vendor specifies it.
PEER_FABRICS = {
    "none": BG.NoPeerFabric,
    "optional": BG.OptionalPeerFabric,
    "built-in": BG.BuiltInPeerFabric,
}
# A `same_as` link's kind of match: the SKOS mapping property it becomes.
# broad: their entity is wider than ours (our PCIe Gen4 link, their PCI Express as a whole):
# a generation or member of the family they name, so no schema:sameAs is written for it.
MATCHES = {"exact": "exactMatch", "close": "closeMatch", "broad": "broadMatch"}
# What a source is (a record source's `kind:`), strongest first: records.SOURCE_KINDS's codes
# and the concepts they become (the ontology gives each its bg:strengthRank, 1 strongest).
SOURCE_KINDS = {
    "vendor": BG.VendorSource,
    "oem": BG.OemSource,
    "operator": BG.OperatorSource,
    "paper": BG.PaperSource,
    "press": BG.PressSource,
    "reseller": BG.ResellerSource,
    "blog": BG.BlogSource,
    "result-set": BG.ResultSetSource,
}
# A fact stated of the thing itself, or derived from what is stated of something else.
EVIDENCE = {"stated": BG.StatedFact, "derived": BG.DerivedFact}
