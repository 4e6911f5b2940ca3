"""``profiler.dumps``: MXNet 1.9's aggregate layout (domains, sort order, table columns,
JSON sections) and the ``Custom Operator`` domain of Python custom operators."""
import json
from collections import OrderedDict

import pytest

import gluonlite as mx
from gluonlite import _profiler_stats as stats
from gluonlite import profiler


def _duration(*ns):
    st = stats.Stat(stats.DURATION)
    for v in ns:
        st.add_duration(v)
    return st


@pytest.fixture
def prof(tmp_path):
    profiler.set_config(profile_all=True, aggregate_stats=True, profile_memory=True,
                        filename=str(tmp_path / "profile.json"))
    profiler.set_state("run")
    profiler.dumps(reset=True)
    yield
    profiler.dump(finished=True)        # clears the events (and stops)
    profiler.dumps(reset=True)
    profiler.set_config(profile_all=False, aggregate_stats=False, filename="profile.json")


def test_table_layout_is_mxnets():
    # the widths MXNet prints (setw(25) name, setw(16) columns), ms with 4 decimals
    table = stats.format_table({"operator": {"sqrt": _duration(182000),
                                             "_plus_scalar": _duration(128000, 153000)}},
                               "total", False)
    assert table.splitlines() == [
        "", "Profile Statistics:", "\tNote the difference in units for different entries.",
        "operator", "=================",
        "Name                          Total Count        Time (ms)    Min Time (ms)"
        "    Max Time (ms)    Avg Time (ms)",
        "----                          -----------        ---------    -------------"
        "    -------------    -------------",
        "_plus_scalar                            2           0.2810           0.1280"
        "           0.1530           0.1405",
        "sqrt                                    1           0.1820           0.1820"
        "           0.1820           0.1820",
        ""]
    assert table.endswith("\n\n")


def test_json_sections_and_numbers():
    doc = stats.format_json({"operator": {"sqrt": _duration(54880000)}}, "total", False)
    parsed = json.loads(doc)
    assert list(parsed) == ["Time", "Memory", "Unit"]
    assert parsed["Memory"] == {}
    assert parsed["Unit"] == {"Time": "ms", "Memory": "kB"}
    assert parsed["Time"]["operator"]["sqrt"] == {"Count": 1, "Total": 54.88, "Min": 54.88,
                                                  "Max": 54.88, "Avg": 54.88}


def test_memory_domain_has_no_total_column():
    mem = stats.Stat(stats.COUNTER)
    for v in (2_000_000, 4_000_000, 2_000_000):
        mem.add_value(v)
    data = {"Device Storage": {"Memory: cpu/0": mem}}
    parsed = json.loads(stats.format_json(data, "total", False))
    assert parsed["Time"] == {}
    assert parsed["Memory"]["Device Storage"]["Memory: cpu/0"] == {
        "Count": 3, "Min": 2000, "Max": 4000, "Avg": 2667}     # kB; the mean of the values
    table = stats.format_table(data, "total", False).splitlines()
    assert table[5] == ("Name                          Total Count    Min Use  (kB)"
                        "    Max Use  (kB)    Avg Use  (kB)")


def test_sort_order_ties_by_name_descending():
    data = {"operator": {"a": _duration(5), "b": _duration(5), "c": _duration(1, 1)}}
    order = lambda key, asc: list(json.loads(stats.format_json(data, key, asc),  # noqa: E731
                                             object_pairs_hook=OrderedDict)["Time"]["operator"])
    assert order("total", False) == ["b", "a", "c"]
    assert order("total", True) == ["c", "b", "a"]
    assert order("count", False) == ["c", "b", "a"]
    assert order("count", True) == ["b", "a", "c"]


def test_domains_in_byte_order():
    data = {name: {"x": _duration(1)} for name in ("operator", "MXNET_C_API", "event",
                                                    "PythonDomain")}
    assert list(json.loads(stats.format_json(data, "total", False),
                           object_pairs_hook=OrderedDict)["Time"]) == [
        "MXNET_C_API", "PythonDomain", "event", "operator"]


def test_dumps_counts_operators_and_resets(prof):
    x = mx.nd.ones((10, 10))
    mx.nd.sqrt(x)
    mx.nd.relu(x)
    mx.nd.relu(x)
    doc = json.loads(profiler.dumps(format="json", reset=True))
    ops = doc["Time"]["operator"]
    assert ops["sqrt"]["Count"] == 1 and ops["relu"]["Count"] == 2
    assert set(ops["relu"]) == {"Count", "Total", "Min", "Max", "Avg"}
    assert json.loads(profiler.dumps(format="json"))["Time"] == {}
    with pytest.raises(AssertionError):
        profiler.dumps(sort_by="median")


def test_user_domains(prof):
    domain = profiler.Domain("PD")
    task, frame = domain.new_task("tk"), domain.new_frame("fr")
    task.start()
    task.stop()
    frame.start()
    frame.stop()
    counter = domain.new_counter("ctr")
    counter.set_value(5)
    counter += 4
    event = profiler.Event("ev")
    event.start()
    event.stop()
    time = json.loads(profiler.dumps(format="json"))["Time"]
    assert time["PD"]["tk"]["Count"] == 1
    assert time["PD,frame"]["fr"]["Count"] == 1
    assert time["event"]["ev"]["Count"] == 1
    assert time["PD"]["ctr"] == {"Count": 2, "Total": 9, "Min": 5, "Max": 9, "Avg": 7}


def test_sorting_holds_for_every_key(prof):
    for n in range(1, 4):
        mx.nd.relu(mx.nd.ones((n * 50, 50)))
        mx.nd.sqrt(mx.nd.ones((n, 5)))
    names = {"total": "Total", "avg": "Avg", "min": "Min", "max": "Max", "count": "Count"}
    for key, field in names.items():
        for asc in (False, True):
            doc = json.loads(profiler.dumps(format="json", sort_by=key, ascending=asc),
                             object_pairs_hook=OrderedDict)
            for entries in doc["Time"].values():
                values = [e[field] for e in entries.values()]
                assert values == sorted(values, reverse=not asc)


def test_custom_operator_scope_names_inner_operators(prof):
    x = mx.nd.ones((4,))
    with profiler.custom_operator_scope("MyOp"):
        mx.nd.sqrt(x)
    with profiler.custom_operator_scope("MyOp", backward=True):
        mx.nd.relu(x)
    time = json.loads(profiler.dumps(format="json"))["Time"]
    assert set(time["Custom Operator"]) == {"MyOp::pure_python", "MyOp::sqrt",
                                            "_backward_MyOp::pure_python", "_backward_MyOp::relu"}
    assert not {"sqrt", "relu"} & set(time.get("operator", {}))


def test_custom_operator_scope_is_free_when_not_profiling():
    assert profiler.custom_operator_scope("MyOp") is profiler.custom_operator_scope("Other")
