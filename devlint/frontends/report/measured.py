"""What each rule's reports were worth on real code, as measured: the figures its page and the README's
rules table print (DESIGN.md section 6). Data only; benchmarks/README.md says how each was measured.

`wide`: the reports on the `wide` set (monai, fastai, trl, speechbrain, pytorch-ignite) and `full`
together, labelled in context by the developers who tune the rules (benchmarks/labels.csv). `fresh`: the
reports on seven libraries nobody tuned to (botorch, lightly, mmengine, nnunetv2, pytorch-forecasting,
pytorch-metric-learning, segmentation-models-pytorch), labelled blind by readers given only the rule's
page, PyTorch's device semantics and the file (benchmarks/fresh_labels.csv), before any rule was changed
for what they found. `unseen`: the same, after the rules were changed for what `fresh` found, on eight
more libraries (benchmarks/fetch_unseen.sh: kornia, gpytorch, stable-baselines3, sentence-transformers,
peft, torchio, skorch, open-clip-torch; benchmarks/unseen_labels.csv). `unseen2`: the same again, after
the changes `unseen` led to, on eight more (`fetch_unseen.sh unseen2`: ultralytics, pyannote.audio,
asteroid, neuralforecast, pytorch-tabnet, tianshou, torchgeo, flair; benchmarks/unseen2_labels.csv).
`unseen3`: the same again, on eight more with training and evaluation loops (`fetch_unseen.sh unseen3`:
captum, avalanche-lib, pyod, darts, pytorch-tabular, torch-geometric, tsai, pytorch-widedeep;
benchmarks/unseen3_labels.csv), read with the rules of stop 36. `unseen4`: the same again, read with the rules
of stop 37, on eight more (`fetch_unseen.sh unseen4`: torchtune, torchrl, tensordict, pyro-ppl, mmdet,
lightning-bolts, torchvision, x-transformers; benchmarks/unseen4_labels.csv).
`T1+T2`, `T3`, `T4`, `T5-T7`: training and research repositories (benchmarks/training_sets.txt names them and
their commits), labelled blind the same way (benchmarks/train_labels.csv, train3_labels.csv, train4_labels.csv,
train5_labels.csv), each read with the rules as the previous one changed them (issue 49): `T1+T2` with DEV003 and
DEV004 first rebuilt on evidence and DEV002 reporting only repeated copies; `T3` after the changes `T1+T2` led to;
`T4` after those of `T3`; `T5-T7` (46 repositories) after those of `T4`. `T8` (12 training repositories) and
`unseen5` (five libraries) were labelled blind together after the changes `T5-T7` led to
(benchmarks/train8_labels.csv; `benchmarks/training_sets.txt` names them); `T9` + `T10` (37) with `unseen6` (six
libraries) after the changes `T8` led to (train9_labels.csv), and `T11` + `T12` (38) with `unseen7` (five libraries)
after the changes those led to (train11_labels.csv). The rules of issue 53 (DEV012-DEV017) were first measured on
`T13` + `T14` (30 training repositories) and `unseen`-`unseen7` together (benchmarks/train13_labels.csv).
`T15` (14 training repositories) after the shapes of 2026-12-03 (benchmarks/train15_labels.csv), `T16` (8) after
the mends `T15` led to (benchmarks/train16_labels.csv), `T17` (14) after the mends `T16` led to
(benchmarks/train17_labels.csv; DEV012-DEV017 with preview on), and `T18` (19) after the shapes of issue 52
(benchmarks/train18_labels.csv; DEV005 and DEV012-DEV017 with preview on), and `T19` (15) after the mends `T18`
led to (benchmarks/train19_labels.csv; the same settings), and `T20` (9) with `unseen8` (eight libraries) after the
review of that change (benchmarks/train20_labels.csv; the same settings), and `T21` (15) after the mends `T20` led
to (benchmarks/train21_labels.csv; DEV005, DEV011, DEV012 and DEV015 with preview on), and `T22` (12) after the
DEV005 mends `T21` led to (benchmarks/train22_labels.csv; DEV005 and DEV011-DEV017 with preview on), and `T23` (8)
after the DEV009 mends `T22` led to (benchmarks/train23_labels.csv; the default tier and DEV003, DEV004 named), and
`T24` (16) and `T25` (11), both at the rules of `T23`'s mends (benchmarks/train24_labels.csv, train25_labels.csv;
the default tier, DEV003 and DEV004 named, DEV005 and DEV011-DEV017 with preview on), and `T26` (15) after the
mends those two led to (benchmarks/train26_labels.csv; the default tier and DEV003, DEV004 named).
There DEV003's and DEV004's figures are of their default shapes (what they report where they are named).
Each is (reports, true, defensible, false) with the settings of the day: a default rule's default
shapes; a preview rule (DEV011; DEV003, DEV004, DEV005 on `unseen2`, `unseen3` and `unseen4`) with preview on.
"""

from __future__ import annotations

MEASURED_ON = "2026-11-26 (libraries) and 2026-12-01/02/03/04 (training repositories and libraries), devlint 0.1.0"

MEASURED: dict[str, dict[str, tuple[int, int, int, int]]] = {
    "DEV001": {"wide": (12, 10, 2, 0), "fresh": (2, 0, 0, 2), "unseen": (1, 0, 1, 0), "unseen3": (2, 1, 1, 0), "T1+T2": (3, 0, 0, 3), "T4": (2, 2, 0, 0), "T5-T7": (5, 3, 0, 2), "unseen5": (2, 2, 0, 0), "T9-T10": (1, 1, 0, 0), "unseen6": (1, 0, 0, 1), "T11-T12": (4, 2, 0, 2), "T20": (1, 0, 0, 1), "T23": (3, 0, 3, 0), "T25": (4, 0, 0, 4)},
    "DEV002": {"wide": (154, 149, 5, 0), "fresh": (11, 6, 5, 0), "unseen": (30, 24, 4, 2), "unseen2": (16, 8, 8, 0),
               "unseen3": (65, 43, 22, 0), "unseen4": (48, 42, 6, 0), "T1+T2": (150, 131, 19, 0), "T3": (52, 18, 34, 0), "T4": (26, 9, 17, 0), "T5-T7": (110, 50, 60, 0), "unseen5": (49, 14, 32, 3), "T8": (17, 3, 14, 0), "T9-T10": (78, 41, 37, 0), "unseen6": (10, 4, 6, 0), "T11-T12": (165, 79, 86, 0), "unseen7": (2, 0, 2, 0), "T15": (39, 14, 25, 0), "T16": (38, 11, 27, 0), "T17": (38, 13, 24, 1), "T18": (9, 4, 3, 2), "T19": (103, 45, 58, 0), "T20": (20, 10, 10, 0), "unseen8": (3, 1, 2, 0), "T21": (54, 32, 22, 0), "T22": (15, 10, 5, 0), "T23": (31, 7, 24, 0), "T24": (50, 32, 18, 0), "T25": (14, 7, 7, 0), "T26": (62, 32, 30, 0)},
    "DEV003": {"wide": (17, 11, 5, 1), "fresh": (50, 0, 30, 20), "unseen": (2, 0, 0, 2), "unseen2": (4, 0, 4, 0),
               "unseen3": (14, 4, 9, 1), "unseen4": (45, 1, 42, 2), "T1+T2": (45, 10, 34, 1), "T3": (14, 3, 11, 0), "T4": (4, 0, 3, 1), "T5-T7": (16, 6, 10, 0), "unseen5": (9, 0, 0, 9), "T8": (11, 3, 8, 0), "T9-T10": (60, 7, 9, 44), "unseen6": (5, 0, 4, 1), "T11-T12": (17, 1, 15, 1), "unseen7": (2, 2, 0, 0), "T15": (3, 2, 1, 0), "T16": (3, 3, 0, 0), "T17": (6, 3, 3, 0), "T19": (9, 0, 9, 0), "T20": (2, 1, 1, 0), "T21": (4, 0, 4, 0), "T22": (23, 16, 7, 0), "T23": (13, 0, 13, 0), "T24": (18, 3, 15, 0), "T26": (2, 2, 0, 0)},
    "DEV004": {"wide": (41, 14, 27, 0), "fresh": (2, 2, 0, 0), "unseen": (2, 0, 0, 2), "unseen2": (2, 1, 1, 0),
               "unseen3": (34, 2, 8, 24), "unseen4": (17, 9, 1, 7), "T1+T2": (23, 5, 17, 1), "T3": (17, 13, 2, 2), "T4": (40, 2, 38, 0), "T5-T7": (15, 4, 11, 0), "unseen5": (2, 1, 0, 1), "T8": (2, 1, 0, 1), "T9-T10": (15, 6, 3, 6), "unseen6": (5, 4, 0, 1), "T11-T12": (30, 3, 26, 1), "unseen7": (2, 1, 1, 0), "T15": (48, 4, 44, 0), "T16": (6, 0, 6, 0), "T17": (34, 9, 25, 0), "T18": (34, 6, 24, 4), "T19": (30, 9, 21, 0), "T20": (3, 1, 2, 0), "unseen8": (5, 3, 2, 0), "T21": (25, 2, 23, 0), "T22": (16, 2, 14, 0), "T23": (25, 4, 18, 3), "T24": (50, 11, 38, 1), "T25": (7, 0, 7, 0), "T26": (23, 13, 10, 0)},
    "DEV005": {"wide": (17, 13, 4, 0), "fresh": (4, 3, 0, 1), "unseen": (6, 0, 2, 4), "unseen2": (5, 2, 2, 1),
               "unseen3": (17, 8, 2, 7), "unseen4": (38, 13, 20, 5), "T18": (11, 0, 8, 3), "T19": (15, 0, 13, 2), "T20": (2, 0, 2, 0), "unseen8": (6, 4, 2, 0), "T21": (7, 0, 2, 5), "T22": (13, 3, 10, 0), "T24": (4, 0, 4, 0), "T25": (2, 0, 2, 0)},
    "DEV008": {"wide": (4, 3, 1, 0), "unseen": (2, 0, 2, 0), "unseen2": (2, 2, 0, 0), "unseen3": (3, 3, 0, 0),
               "unseen4": (3, 3, 0, 0), "T1+T2": (38, 22, 16, 0), "T3": (16, 4, 11, 1), "T4": (14, 9, 5, 0), "T5-T7": (89, 77, 12, 0), "unseen5": (35, 14, 21, 0), "T8": (26, 22, 4, 0), "T9-T10": (93, 75, 18, 0), "unseen6": (13, 11, 2, 0), "T11-T12": (174, 125, 49, 0), "unseen7": (4, 4, 0, 0), "T15": (59, 59, 0, 0), "T16": (13, 12, 1, 0), "T17": (40, 33, 7, 0), "T18": (18, 17, 1, 0), "T19": (58, 42, 16, 0), "T20": (13, 0, 13, 0), "T21": (42, 35, 7, 0), "T22": (12, 8, 4, 0), "T23": (10, 6, 4, 0), "T24": (25, 25, 0, 0), "T25": (10, 10, 0, 0), "T26": (24, 19, 5, 0)},
    "DEV006": {"T15": (12, 0, 0, 12), "T18": (1, 1, 0, 0), "T26": (1, 0, 0, 1)},
    "DEV007": {"T1+T2": (2, 1, 1, 0), "T3": (4, 4, 0, 0), "T5-T7": (1, 1, 0, 0), "T8": (2, 2, 0, 0), "T9-T10": (1, 1, 0, 0), "T17": (2, 0, 2, 0), "T19": (1, 1, 0, 0), "T20": (1, 1, 0, 0), "T25": (2, 0, 2, 0)},
    "DEV009": {"unseen4": (1, 0, 0, 1), "T1+T2": (3, 1, 0, 2), "T3": (2, 2, 0, 0), "unseen5": (1, 0, 1, 0), "T8": (2, 2, 0, 0), "T9-T10": (2, 2, 0, 0), "unseen6": (3, 0, 0, 3), "T11-T12": (1, 1, 0, 0), "T15": (1, 1, 0, 0), "T16": (3, 0, 2, 1), "T19": (3, 0, 0, 3), "T21": (2, 2, 0, 0), "T22": (1, 0, 0, 1), "T24": (1, 0, 0, 1), "T25": (2, 2, 0, 0)},
    "DEV011": {"wide": (133, 0, 133, 0), "fresh": (7, 0, 7, 0), "unseen": (19, 0, 19, 0), "unseen2": (18, 0, 18, 0),
               "unseen3": (15, 0, 15, 0), "unseen4": (18, 0, 18, 0), "T21": (41, 0, 41, 0), "T22": (26, 0, 26, 0), "T24": (22, 0, 22, 0), "T25": (5, 0, 5, 0)},
    "DEV012": {"T13-T14": (12, 3, 4, 5), "unseen-unseen7": (37, 8, 21, 8), "T20": (4, 0, 2, 2), "T21": (4, 4, 0, 0), "T24": (1, 0, 0, 1)},
    "DEV013": {"T13-T14": (3, 2, 1, 0), "unseen-unseen7": (1, 0, 1, 0), "T17": (1, 0, 1, 0), "T22": (1, 1, 0, 0)},
    "DEV015": {"T13-T14": (2, 1, 1, 0), "unseen-unseen7": (6, 2, 4, 0), "T18": (3, 0, 3, 0), "T19": (16, 0, 16, 0), "T20": (14, 0, 14, 0), "T21": (34, 0, 34, 0), "T22": (3, 0, 3, 0), "T24": (9, 0, 9, 0), "T25": (1, 0, 1, 0)},
}

# What changed after the blind labels came in (the next fresh measurement is of the changed rule).
AFTER_FRESH = {
    "DEV006": "its first blind reports, on `T15`, were 12 false from one cause: CenterNet's `debug` converts"
              " `batch['meta'][...]` and copies the model's output to the host, and the trainer moves every key of the"
              " batch but `'meta'`; an entry taken by a string key of an input placed only by such a copy is no longer"
              " followed (2026-12-03)",
    "DEV012": "11 of its 13 false reports were in code that returns early where there is no CUDA (`if not "
              "torch.cuda.is_available(): return`, then CUDA streams) or a `__main__` block that sends values to CUDA "
              "itself: both are now CUDA's own code, silent (on the now-read sets: 37 reports, 10 true, 25 defensible, "
              "2 false; no true report lost). Most of what stays is harmless: CUDA-only designs one file does not "
              "show (fairscale's FSDP streams, a CUDA-only offload feature): 27% true, below the bar: it stays in "
              "preview",
    "DEV001": "on `T20` the one report was false: lama's `forward_rears[idd].to(device)`, a list the function fills "
              "by `append` with slices of an `nn.Sequential`; appended values are not read as the list's elements, so "
              "the convention that an element of a container is a tensor answered. Mended (2026-12-03; on `T21`, "
              "measured after the mend, DEV001 gave no report): `append(v)` and `insert(i, v)` are read as the list's elements, and an element of a list "
              "the function builds from displays is a tensor only where each element the file gives it is one. "
              "Before that: "
              "on `unseen6` 1 false (litgpt sets `layer.weight` to a bitsandbytes `Params4bit`, whose `.cuda()` is in place: an attribute set to an object of some class is no longer judged a tensor by its name) and on `T11` + `T12` 2 of 4 (a model made by a call devlint cannot read, then rebound after the move: a binding after the use no longer reaches it; a noise tensor made on the model's device in both branches: a shown no-op). Before that: on `T5-T7` 2 of 5 were false (jukebox moves an element of a list of models, `prior = priors[level]`, "
              "in place): a name whose function reads an attribute no tensor has (`prior.n_ctx`) is no longer "
              "judged a tensor. Before that: both false reports on `fresh` are fixed since: a tensor method read as a value (`f.dim`) was "
              "taken for evidence of a tensor; and a move to where the file shows the tensor already is "
              "(`attn_bias.to(query.dtype)` of a tensor made with `dtype=query.dtype`, PyTorch's reference "
              "attention) is no longer reported",
    "DEV002": "for issue 49 the default shapes are the copies the code shows to repeat (a loop, a `forward`, "
              "a step, a function the project calls from one); blind on training code: 150 on `T1+T2` (87% true), "
              "52 on `T3` (35%), 26 on `T4` (35%), 110 on `T5-T7` (45%), none false in 338. Since `T5-T7` a copy to "
              "where a tensor the function is given is (`.to(x.device)`, `.to(x)`) also counts as repeated: the "
              "function runs once per input (20 of 27 blind-labelled library reports of that shape were true, 0 "
              "false). On `T8` (17, 3 true) and `unseen5` (49, 14 true, 3 false) the harmless ones were mostly copies in "
              "tests (now a preview shape) and the false ones a device-named variable taken for a tensor (fixed). "
              "Before that: the 2 false reports on `unseen` were `torch.LongTensor(ids).to(d)` of token ids: a legacy "
              "constructor of a name may hold data that must cross anyway, or sizes; the file does not say "
              "which, and it is no longer reported. On `T17` the one false report (of 38) was a placeholder made in "
              "an `except` handler that raises at once: a copy on an error path (a block that ends with `raise`) "
              "is now a preview shape. On `T18` 2 of 9 were false: `torch.arange(0, 0).to(x)`, an empty index for an "
              "image with no targets; an `arange` whose literal bounds hold no step is now a 0-element placeholder",
    "DEV003": "on `T9` + `T10` 44 of 60 were false, 41 of them in mamba's kernel tests (`if not torch.cuda.is_available(): pytest.skip(...)` read as a device choice) and the rest in tests skipped in ways their files do not show: a hard-coded device in test code is now a preview shape (blind, 70 of 80 such reports were false or harmless), and a check that skips or exits without CUDA is a requirement. After those changes, on `T11` + `T12`, 17 reports: 1 true, 15 harmless (GPU-only Cog predictors, a Colab notebook, research scripts whose pipeline needs CUDA elsewhere), 1 false (6% true): the default shapes stay far below the bar, so the rule stays in preview. Before that: rebuilt on evidence for issue 49 (the default shapes report only where the file shows it is meant "
              "to run without CUDA and nothing shows it is CUDA-only). Blind on training code: 45 reports on `T1+T2`, "
              "1 false (a tensor made after an early exit on a distributed check: such code is now silent), 10 true; "
              "after the changes they led to (a check must choose a device, an input's device must be a "
              "parameter's), 14 on `T3`, none false, 3 true; 4 on `T4`, 1 false (`.cuda(gpu)` of a loss that holds "
              "no tensor), none true. Rarely wrong, mostly harmless (code CUDA-only by design in ways one file does "
              "not show: multi-GPU `parallelize`, a config default the command line overrides, a demo notebook): "
              "below the bar's 40% true, it stays in preview. After the changes `T4` led to (a function's input-following "
              "is evidence for that function only; legacy `torch.cuda.FloatTensor` used unconditionally is CUDA-only; "
              "loss modules holding no tensor, run-time GPU indices and settings an `exec` rebinds are not reported "
              "by default): 16 on `T5-T7`, 6 true, none false (38% true, below the bar); the harmless ones were NCCL "
              "helpers (`dist.all_reduce` of a tensor moved to CUDA), now preview, and code whose other files are "
              "CUDA-only. On `T8` 11, 3 true, none false; on `unseen5` 9, all false: moves inside `pytest.raises` (now "
              "never reported) and helpers of tests skipped without CUDA, the file's only availability check being "
              "the skip marker (no longer evidence of a device choice). Before that: 46 of the 50 on `fresh` were a parameter's `device=\"cuda\"` default, none a bug: that shape is "
              "in preview since; both on `unseen` were `torch.device(\"cuda\").type`, a name to compare, no "
              "longer reported. With 0 true of 6 blind reports outside that shape (3 false), the rule is in "
              "preview until a blind measurement shows it meets the bar",
    "DEV004": "on `T9` + `T10` 6 of 15 were false (CodeFormer's loads of checkpoints that basicsr's `save_network` writes entry by entry from `.cpu()` copies: now read as host data, as a model loaded with `map_location=\"cpu\"` is); after that, on `T11` + `T12`, 30 reports: 3 true, 26 harmless (published weights, CUDA-only projects, a script's own resume, code nothing calls), 1 false (10% true): far below the bar, the rule stays in preview. Before that: rebuilt on evidence for issue 49 (the default shapes report a load shown to read device state). "
              "Blind on training code: 23 on `T1+T2`, 5 true, 1 false (a sampler's `load_state_dict`: no longer "
              "read as a module's); 17 on `T3`, 13 true, 2 false (checkpoints the project saves from the CPU: a "
              "project whose every module save is host data is now silent); 40 on `T4`, 2 true, none false, 36 "
              "of them resume loads of one GAN repository labelled defensible (the script's own checkpoint, "
              "resumed on the machine that wrote it). 20 true and 3 false in 80: in preview until a blind "
              "measurement shows it meets the bar. After the changes `T4` led to (the savers nearest the load answer for it; "
              "a script's resume of its own save is preview): 15 on `T5-T7`, 4 true, none false (27% true, below the "
              "bar); the harmless ones were published pretrained weights, resumes through the same path variable "
              "(now preview) and projects CUDA-only in other files. Before that: blind, 2 true and 2 false of 4 (a test reloading what it saved through a mock; a file of NumPy "
              "arrays): in preview until a blind measurement shows it meets the bar. On `unseen3`, 24 of 34 "
              "false: 14 reloaded in the same function what a `save...` call wrote into that path or "
              "directory (a test's `trainer.save(path=...)`, `torch.jit.save`), no longer reported; the other "
              "10 hold no device tensors (strings, NumPy arrays, CPU data the project writes), which the file "
              "does not show",
    "DEV009": "on `T22` the one report was false: MambaVision's `torch.nn.KLDivLoss(...).cuda()` at import, before "
              "its `set_device`; a loss with no parameters or buffers places nothing, and is no placement now (as "
              "for DEV003; 2026-12-03). Before that: on `T21`, measured after the `T19` mend and the project-helper reading, 2 reports, both true (DragGAN's StyleGAN training "
              "scripts start NCCL in each spawned process and never pin it). A script set up by the project's own "
              "function (`utils.init_distributed_mode(args)` that starts the group) is read through the project "
              "index since (2026-12-03; no report on the 19 tuning and read sets changed). Before that: "
              "on `T19` the 3 reports, all false, were mmdetection scripts of Cream's CDARTS that write "
              "`os.environ['LOCAL_RANK']` for mmcv's `init_dist`, which pins each rank: a write of `LOCAL_RANK` is no "
              "longer read as the file setting its rank up (2026-12-03). Before that: "
              "on `T16` the one false report was in efficientvit's distributed helpers: `sync_tensor` beside the "
              "`dist_init()` that starts NCCL, in a module with no entry, called where every caller pins the device "
              "in its own file; such a module now has reported only what runs in the process it starts (the "
              "starting function, its callers in the file and what they call). Before that: "
              "on `unseen6` 3 reports in nanotron's library modules were false (its `ParallelContext`, built by the caller, pins the device): a library module that neither starts a process group nor reads `LOCAL_RANK` at its top level is now left alone. Before that: the one blind report, on `unseen4`, was false: torchtune's recipe sets its device up through its "
              "own `utils.get_device(...)`, which calls `set_device`; another module's function that sets the "
              "device up by its name is now taken to pin",
    "DEV005": "the false report on `fresh` (`torch.eye(n).type(other.type())`) is fixed since; on `unseen` 4 "
              "of 6 were false (a dict of tensors padded before the caller moved it; a host path of a "
              "function whose callers move its result): in preview until a blind measurement shows it "
              "meets the bar. On `unseen2` (in preview) 2 of 5 true, 1 false, fixed since: "
              "`torch.randint_like(idx, ..., device=d)` is where `device=` says, not where `idx` is. On `unseen4`, "
              "one report more since stop 38 (a host `torch.eye` a method of pyro's Sylvester flow returns to "
              "its caller), labelled true blind. On `T18` (training code, preview on; the shapes of issue 52 in): 11 "
              "reports, none true, 8 harmless (host-only image resizers, functions nothing calls), 3 false: a "
              "`torch.eye(n)` cast with `.type(dtype)` where `dtype = A.type()` (a tensor type string names its "
              "device: now a move), and a parameter first given to scikit-learn (host data the file does not "
              "mark): far below the bar, the rule stays in preview",
}


def measured_text(code: str) -> str:
    """The page's section on the rule's measured precision ("" when it was not measured)."""
    figures = MEASURED.get(code)
    if not figures:
        return ""
    lines = [f"Measured {MEASURED_ON} (benchmarks/README.md):", ""]
    names = {"wide": "`full` + `wide`, labelled in context", "fresh": "`fresh`, code nobody tuned to, labelled blind",
             "unseen": "`unseen`, more code nobody tuned to, labelled blind after the changes `fresh` led to",
             "unseen2": "`unseen2`, more again, labelled blind after the changes `unseen` led to",
             "unseen3": "`unseen3`, eight more libraries with training loops, labelled blind",
             "unseen4": "`unseen4`, eight more (distributed recipes, tensor containers), labelled blind",
             "T1+T2": "`T1` + `T2`, 23 training and research repositories, labelled blind (the rule before the changes"
                      " they led to)",
             "T3": "`T3`, 17 more training repositories, labelled blind after those changes",
             "T4": "`T4`, 14 more, labelled blind after the changes `T3` led to",
             "T5-T7": "`T5`-`T7`, 46 more training and research repositories, labelled blind after the changes `T4`"
                      " led to",
             "unseen5": "`unseen5`, five more libraries (composer, allennlp, catalyst, vector-quantize-pytorch,"
                        " fairscale), labelled blind after the changes `T5`-`T7` led to",
             "T8": "`T8`, 12 more training repositories, labelled blind with `unseen5`",
             "T9-T10": "`T9` + `T10`, 37 more training and research repositories, labelled blind after the changes"
                       " `T8` led to",
             "unseen6": "`unseen6`, six more libraries (pykeen, torchdiffeq, Torch-Pruning, litgpt, nanotron,"
                        " llm-foundry), labelled blind with `T9` + `T10`",
             "T11-T12": "`T11` + `T12`, 38 more training and research repositories, labelled blind after the changes"
                        " `T9` + `T10` led to",
             "unseen7": "`unseen7`, five more libraries (e3nn, ClassyVision, fvcore, opacus, EfficientNet-PyTorch),"
                        " labelled blind with `T11` + `T12`",
             "T13-T14": "`T13` + `T14`, 30 more training and research repositories, labelled blind for the rules of"
                        " issue 53 (DEV012-DEV017, their first measurement)",
             "unseen-unseen7": "`unseen`-`unseen7`, the 46 libraries read before for the other rules, new to these"
                               " rules, labelled blind with `T13` + `T14`",
             "T15": "`T15`, 14 more training repositories, labelled blind after this round's shapes (2026-12-03)",
             "T16": "`T16`, 8 more training repositories, labelled blind after the mends `T15` led to (2026-12-03)",
             "T17": "`T17`, 14 more training repositories, labelled blind after the mends `T16` led to (2026-12-03)",
             "T18": "`T18`, 19 more training repositories, labelled blind after the shapes of issue 52 (2026-12-03)",
             "T19": "`T19`, 15 more training and research repositories, labelled blind after the mends `T18` led to"
                    " (2026-12-03)",
             "T20": "`T20`, 9 more training and research repositories, labelled blind after the mends `T19` led to"
                    " (2026-12-03)",
             "T21": "`T21`, 15 more training and research repositories, labelled blind after the DEV001 and DEV009"
                    " mends `T20` led to (2026-12-03)",
             "T22": "`T22`, 12 more training and research repositories, labelled blind after the DEV005 mends `T21`"
                    " led to (2026-12-03)",
             "T23": "`T23`, 8 more training and research repositories, labelled blind after the DEV009 mends `T22`"
                    " led to (2026-12-03)",
             "T24": "`T24`, 16 more training and research repositories, labelled blind after the DEV001 fix mend `T23`"
                    " led to (2026-12-03)",
             "T25": "`T25`, 11 more training and research repositories, labelled blind with `T24` (2026-12-03)",
             "T26": "`T26`, 15 more training and research repositories, labelled blind after the DEV003, DEV004 and"
                    " DEV009 mends `T24` and `T25` led to (2026-12-04)",
             "unseen8": "`unseen8`, eight more libraries (torchsde, lpips, piq, normflows, zuko, torchcfm, geomloss,"
                        " nflows), labelled blind with `T20`"}
    for where, (reports, true, defensible, false) in figures.items():
        if reports:
            lines.append(f"- {names[where]}: {reports} reports, {true / reports:.0%} true, "
                         f"{defensible / reports:.0%} defensible, {false / reports:.0%} false")
    if code in AFTER_FRESH:
        lines += ["", f"Since then: {AFTER_FRESH[code]}."]
    return "\n".join(lines) + "\n"


LIBRARY_SETS = ("fresh", "unseen", "unseen2", "unseen3", "unseen4", "unseen5", "unseen6", "unseen7", "unseen-unseen7",
                "unseen8")
TRAINING_SETS = ("T1+T2", "T3", "T4", "T5-T7", "T8", "T9-T10", "T11-T12", "T13-T14", "T15", "T16", "T17", "T18",
                 "T19", "T20", "T21", "T22", "T23", "T24", "T25", "T26")


def table_cell(code: str, sets: tuple[str, ...] = LIBRARY_SETS) -> str:
    """`reports: T/D/F` labelled blind (the `sets` together: by default `fresh` and the five `unseen` rounds) for the
    README's rules table ("-" when there was no report)."""
    figures = [MEASURED.get(code, {}).get(where) for where in sets]
    reports, true, defensible, false = (sum(column) for column in zip((0, 0, 0, 0), *(f for f in figures if f)))
    if not reports:
        return "-"
    return f"{reports}: {true}/{defensible}/{false}"
