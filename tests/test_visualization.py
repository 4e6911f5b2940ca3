"""``mx.viz``: ``print_summary`` prints MXNet 1.9.1's table (fixture
``viz_summary.json``, mobilenet0.25 included); ``plot_network`` builds the graph
(checked through a stand-in ``graphviz`` module) or says graphviz is missing."""
import json
import os
import sys
import types

import pytest

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
sys.path.insert(0, FIXTURES)
from viz_cases import cases, small_net  # noqa: E402

EXPECTED = json.load(open(os.path.join(FIXTURES, "viz_summary.json")))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_print_summary_matches_mxnet(name, capsys):
    symbol, shape, width = cases(mx)[name]
    mx.viz.print_summary(symbol, shape=shape, line_length=width)
    assert capsys.readouterr().out == EXPECTED[name]


def test_print_summary_errors():
    with pytest.raises(TypeError, match="must be Symbol"):
        mx.viz.print_summary("net")


class _FakeDigraph:
    def __init__(self, name, format):
        self.name, self.format, self.nodes, self.edges = name, format, {}, []

    def node(self, name, label, **attrs):
        self.nodes[name] = (label, attrs)

    def edge(self, tail_name, head_name, label, **attrs):
        self.edges.append((tail_name, head_name, label))


def test_plot_network_graph(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", types.SimpleNamespace(Digraph=_FakeDigraph))
    dot = mx.viz.plot_network(small_net(mx), shape={"data": (1, 3, 8, 8)}, title="net")
    assert dot.name == "net" and dot.format == "pdf"
    assert dot.nodes["conv"][0] == "Convolution\n3x3/1, 4"
    assert dot.nodes["pool"][0] == "Pooling\nmax, 2x2/2x2"
    assert "conv_weight" not in dot.nodes  # weights hidden
    assert ("conv", "data", "3x8x8") in dot.edges
    assert ("fc", "flat", "36") in dot.edges
    shown = mx.viz.plot_network(small_net(mx), hide_weights=False)
    assert "conv_weight" in shown.nodes


def test_plot_network_without_graphviz(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match="graphviz"):
        mx.viz.plot_network(small_net(mx))
