"""Shared test helpers: the released CLUTRR data (optional) and the default KB."""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

from clutrr.core.kb import load_kb

REPO = Path(__file__).resolve().parents[1]
RELEASE = REPO.parent / "shared" / "clutrr-release"

# A suite started in the background by a non-interactive shell inherits SIGINT ignored, and so would
# every process the tests start; the Ctrl-C tests send it as a terminal would, so restore it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def kb():
    """The default, sound kinship KB."""
    return load_kb("kinship")


@pytest.fixture(scope="session")
def release() -> Path:
    """The released CLUTRR datasets in ../shared, or a clean skip when absent."""
    if not RELEASE.is_dir():
        pytest.skip("../shared/clutrr-release is not present")
    return RELEASE


# Modules left out by `pytest --fast` (`make test-fast`): each takes many seconds (Ray clusters,
# whole releases, model training, subprocess runs against servers, fresh clones and venvs).
SLOW_MODULES = {
    "test_audit", "test_baselines_extra", "test_baselines_probe", "test_baselines_training", "test_docs_console",
    "test_docs_eval", "test_docs_samples", "test_docs_site", "test_eval_endpoint", "test_faults", "test_faults_llm",
    "test_generate_cli", "test_hypothesis_only", "test_integrations", "test_long_context", "test_packaging",
    "test_probes", "test_pyg_dataset", "test_ray_head_check", "test_ray_quiet", "test_readme", "test_release",
    "test_release_reference",
    "test_robustness", "test_rl", "test_scale", "test_scale_ray_nodes", "test_scale_stores", "test_determinism",
    "test_graph", "test_pipeline", "test_recast", "test_kb_soundness", "test_checker_defects", "test_bank_check",
    "test_cli_errors", "test_generator_properties", "test_eval", "test_composer", "test_questions",
    "test_faults_races", "test_faults_bounds", "test_faults_secrets", "test_fuzz", "test_bench_diagnostics",
    "test_kinship", "test_kinship_tree", "test_baselines_data", "test_baselines_registry", "test_baselines_report",
    "test_composer_forms", "test_form_eval", "test_diagnostics_papers", "test_family", "test_reader_snapshot",
    "test_compiled", "test_size", "test_rl_forms", "test_integrations_forms", "test_integrations_kinship",
    "test_kinship_systems", "test_kinship_questions", "test_kinship_everywhere", "test_release_kinship",
    "test_baselines_kinship",
}


# Modules that start a local Ray instance or cluster: under xdist they are one unit of work (below), so
# one worker runs them one after another and no two Ray instances of this suite start at once.
RAY_MODULES = {"test_faults_races", "test_ray_head_check", "test_ray_quiet", "test_scale", "test_scale_ray_nodes"}


def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true", help="leave out the slow modules (SLOW_MODULES in tests/conftest.py)")


def pytest_ignore_collect(collection_path, config):
    """With --fast, the slow modules are not even imported (their imports alone cost seconds)."""
    if config.getoption("--fast") and collection_path.suffix == ".py" and collection_path.stem in SLOW_MODULES:
        return True
    return None


def _unit(module: str) -> str:
    """The unit of work a test module belongs to under xdist: itself, or "ray"."""
    return "ray" if module in RAY_MODULES else module


def _order(item) -> tuple[bool, bool]:
    module = item.module.__name__.rpartition(".")[2]
    return _unit(module) != "ray", module not in SLOW_MODULES


def pytest_collection_modifyitems(config, items):
    """On an xdist worker: the Ray modules first, then the slow ones, so that no long module is the last
    one taken while the other worker sits idle (the order the scheduler below hands modules out in)."""
    if hasattr(config, "workerinput"):
        items.sort(key=_order)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` (`make test`): each test module is one unit of work, so its module-scoped
    fixtures are built once, and the Ray modules are one unit between them; units are handed out in
    collection order (the order above), not xdist's default of most tests first."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleUnits(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(Path(nodeid.partition("::")[0]).stem)

    config.option.loadscopereorder = False
    return ModuleUnits(config, log)
