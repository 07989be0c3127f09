"""Calibrations: a short real calibration on this CPU, the JSON round trip, refused files
(corrupted, tampered, malformed), and bad arguments."""
from __future__ import annotations

import json

import pytest
import torch

from throughput import Calibration, calibrate, default_calibration, load_calibration, shipped_calibrations
from throughput.calibration import digest
from throughput.device import cpu_name
from throughput.models import model_spec

TINY_SHAPES = [(n, 2 * n, g) for n in (8, 24, 64) for g in (1, 4)]


@pytest.fixture(scope="module")
def tiny() -> Calibration:
    """A real calibration: GIN with 4 channels and 1 layer at six small shapes."""
    return calibrate(hidden=4, layers=1, shapes=TINY_SHAPES, warmup=1, repeats=3, threads=1, loaders=False)


def test_short_real_calibration_times_every_shape(tiny):
    assert (tiny.model, tiny.hidden, tiny.layers, tiny.device, tiny.mode) == ("gin", 4, 1, "cpu", "eager")
    assert [t.shape for t in tiny.timings] == TINY_SHAPES
    for timing in tiny.timings:
        assert 0 < timing.fastest <= timing.p25 <= timing.median <= timing.p75
        assert timing.repeats >= 3
    assert tiny.device_info["name"] == cpu_name() and tiny.device_info["threads"] == 1
    assert tiny.versions["torch"] == torch.__version__
    assert tiny.model_info["parameters"] == sum(p.numel() for p in model_spec("gin", 4, 1).build().parameters())
    assert tiny.fit.held_out["shapes"] == len(TINY_SHAPES)
    assert tiny.predict_step(64, 128, 4) > 0
    assert tiny.shape_range == (64, 128, 4)


def test_calibration_restores_torch_threads(tiny):
    before = torch.get_num_threads()
    calibrate(hidden=2, layers=1, shapes=TINY_SHAPES, warmup=0, repeats=3, threads=1, loaders=False)
    assert torch.get_num_threads() == before


def test_schnet_and_a_users_module_calibrate():
    schnet = calibrate("schnet", hidden=8, layers=1, shapes=TINY_SHAPES, warmup=0, repeats=3, loaders=False)
    assert schnet.model == "schnet" and schnet.model_info["parameters"] > 0

    class MeanPool(torch.nn.Module):
        def __init__(self, hidden: int, layers: int) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(9, hidden)
            self.head = torch.nn.Linear(hidden, 1)

        def forward(self, x, edge_index, batch, num_graphs):
            pooled = torch.zeros(num_graphs, self.lin.out_features).index_add_(0, batch, self.lin(x))
            return self.head(pooled)

    custom = calibrate(MeanPool, hidden=3, layers=1, shapes=TINY_SHAPES, warmup=0, repeats=3, loaders=False)
    assert custom.model.startswith("custom:") and custom.model.endswith("MeanPool")
    assert custom.model_info["parameters"] == 9 * 3 + 3 + 3 + 1


def test_progress_hears_every_shape():
    heard = []
    calibrate(hidden=2, layers=1, shapes=TINY_SHAPES, warmup=0, repeats=3, loaders=False,
              progress=lambda done, total, shape: heard.append((done, total, shape)))
    assert heard[:-1] == [(i, 6, shape) for i, shape in enumerate(TINY_SHAPES)]
    assert heard[-1][:2] == (6, 6)


def test_round_trip_through_a_file(tiny, tmp_path):
    path = tiny.save(tmp_path)
    assert path.name == tiny.filename and path.name.endswith("__gin-h4-l1__eager.json")
    loaded = load_calibration(path)
    assert loaded == tiny
    assert loaded.source == path.name
    assert load_calibration(path.read_bytes()) == tiny
    assert load_calibration(path.read_text()) == tiny
    assert loaded.predict_step(100, 300, 7) == tiny.predict_step(100, 300, 7)


def _resigned(data: dict) -> dict:
    """The file after an edit whose author also recomputed the digest."""
    body = {key: value for key, value in data.items() if key != "digest"}
    return {**body, "digest": digest(body)}


def test_corrupted_and_tampered_files_are_refused(tiny, tmp_path):
    good = tiny.to_dict()
    text = json.dumps(good)
    cases = {
        "truncated": text[: len(text) // 2],
        "not json": "calibration",
        "a list": "[1, 2]",
    }
    for name, content in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.json"
        path.write_text(content)
        with pytest.raises(ValueError, match="not a calibration file|No calibration file|not a graph packing"):
            load_calibration(path)
    edited = json.loads(text)
    edited["timings"][2]["median"] *= 0.5
    with pytest.raises(ValueError, match="changed after it was written"):
        load_calibration(edited)
    edited["timings"][2]["min"] = edited["timings"][2]["p25"] = edited["timings"][2]["median"]
    with pytest.raises(ValueError, match="stored fit is not the fit of its timings"):
        load_calibration(_resigned(edited))
    forged = json.loads(text)
    coefficients = forged["fit"]["coefficients"]
    coefficients[max(coefficients, key=lambda name: abs(coefficients[name]))] *= 2
    with pytest.raises(ValueError, match="stored fit is not the fit"):
        load_calibration(_resigned(forged))


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(schema="graph-packing-config"), "not a graph packing calibration"),
    (lambda d: d.update(schema_version=7), "schema version 7"),
    (lambda d: d.update(mode="jit"), "mode must be"),
    (lambda d: d["timings"].pop(), "at least 6"),
    (lambda d: d["timings"][0].update(nodes=-3), r"timings\[0\].nodes"),
    (lambda d: d["timings"][1].update(median="fast"), r"timings\[1\].median"),
    (lambda d: d["timings"].__setitem__(1, dict(d["timings"][0])), "shape twice"),
    (lambda d: d["device"].pop("name"), "device.name"),
    (lambda d: d["model"].update(hidden=0), "model.hidden"),
    (lambda d: d["fit"].update(form="cubic"), "fit.form"),
    (lambda d: d["timings"][0].update(nodes=10**30),
     r"timings\[0\].nodes must be a whole number of at least 1 and at most 1,099,511,627,776, got a number \(1000"
     r"000000000000000000000000000\); calibrate again instead of editing the file"),
    (lambda d: d["timings"][0].update(edges=2**41), r"timings\[0\].edges"),
    (lambda d: d["timings"][0].update(median=5e-324, min=5e-324, p25=5e-324), r"timings\[0\].median must be between"),
    (lambda d: d["timings"][0].update(p75=1e300), r"timings\[0\].p75 must be between 1e-09 and 1e\+06 seconds"),
])
def test_malformed_fields_are_named(tiny, edit, message):
    data = json.loads(json.dumps(tiny.to_dict()))
    edit(data)
    with pytest.raises(ValueError, match=message):
        load_calibration(_resigned(data))


def test_missing_and_oversized_files(tmp_path):
    with pytest.raises(ValueError, match="No calibration file"):
        load_calibration(tmp_path / "absent.json")
    with pytest.raises(ValueError, match="Give a calibration"):
        load_calibration(12)


@pytest.mark.parametrize("kwargs, message", [
    ({"model": "gcn"}, "Unknown model 'gcn'"),
    ({"mode": "jit"}, "mode must be one of eager, compile"),
    ({"device": "tpu"}, "device must be"),
    ({"shapes": TINY_SHAPES[:5]}, "at least 6 shapes"),
    ({"shapes": [(8, 16)] * 6}, r"\(nodes, edges, graphs\)"),
    ({"shapes": [(0, 16, 1)] + TINY_SHAPES}, "shape nodes"),
    ({"hidden": 0}, "hidden must lie"),
    ({"budget": 0}, "budget"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        calibrate(**{"shapes": TINY_SHAPES, **kwargs})


def test_cuda_without_a_gpu_says_how_to_proceed():
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ValueError, match="CUDA is not available here"):
        calibrate(device="cuda", shapes=TINY_SHAPES)


def test_shipped_calibrations_load_and_name_their_device():
    paths = shipped_calibrations()
    assert paths, "the project ships this machine's CPU calibration"
    for path in paths:
        cal = load_calibration(path)
        assert path.name == cal.filename
        assert cal.device_info["name"] and cal.versions["torch"] and cal.created
        if cal.device.startswith("cuda"):  # measured on a GPU: the CUDA device and its properties are named
            assert cal.device_info["type"] == "cuda" and cal.versions["cuda"]
            assert cal.device_info["cuda"]["memory_gib"] > 0 and "NVIDIA" in cal.device_name
        else:
            assert cal.device == "cpu" and cal.device_info["type"] == "cpu"
    assert {load_calibration(path).device_name for path in paths} >= {"NVIDIA H100 80GB HBM3"}
    h100 = {cal.mode: cal for cal in map(load_calibration, paths) if cal.device_name == "NVIDIA H100 80GB HBM3"}
    assert set(h100) == {"eager", "compile"} and h100["compile"].compile["seconds"] > 0
    assert load_calibration(default_calibration()).mode == "eager"


def test_a_step_the_machine_cannot_run_is_named_with_its_shape():
    """A real failed allocation (2 TB of node features): torch raises a RuntimeError, the
    timer a ValueError that names the shape and what to do."""
    from throughput.measure import ShapeTimer, TimingPlan

    timer = ShapeTimer(model_spec("gin", 2, 1), "cpu", "eager", TimingPlan(warmup=1, repeats=3))
    with pytest.raises(ValueError, match=r"Timing a step at shape \(274877906944, 64, 1\) on cpu \(eager\) failed: "
                                         r".*can't allocate memory.*\(give smaller shapes if memory ran out\)\.$"):
        timer.time((2**38, 64, 1))


def test_compiled_mode_times_a_shape_and_the_cost_of_its_compilation():
    """torch.compile(dynamic=False) on this CPU: one real compilation of a tiny GIN step."""
    from throughput.measure import ShapeTimer, TimingPlan

    timer = ShapeTimer(model_spec("gin", 2, 1), "cpu", "compile", TimingPlan(warmup=1, repeats=3))
    timing = timer.time((12, 24, 2))
    assert timing.compile_seconds > 10 * timing.median  # compiling costs far more than a step
    assert timing.eager_median > 0 and timing.repeats == 3
    assert timer.recompile_limit == torch._dynamo.config.recompile_limit
