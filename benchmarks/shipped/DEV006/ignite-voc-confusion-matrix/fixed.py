# shipped: https://github.com/pytorch/ignite/pull/1200
# Segmentation example logged its ConfusionMatrix metric via compute().numpy() while the metric state sat on the GPU; fixed with .cpu().numpy().
import torch

import ignite.distributed as idist
from ignite.engine import Events, create_supervised_evaluator, create_supervised_trainer
from ignite.metrics import ConfusionMatrix, IoU, mIoU

from utils import exp_tracking


def setup(config):
    model = config.model.to(config.device)
    model = idist.auto_model(model)
    optimizer = idist.auto_optim(config.optimizer)
    return model, optimizer, config.criterion


def training(local_rank, config, class_names):
    model, optimizer, criterion = setup(config)
    trainer = create_supervised_trainer(model, optimizer, criterion, device=config.device)

    cm_metric = ConfusionMatrix(num_classes=config.num_classes, average="recall")
    metrics = {"IoU": IoU(cm_metric), "mIoU_bg": mIoU(cm_metric)}
    evaluator = create_supervised_evaluator(model, metrics=metrics, device=config.device)

    @trainer.on(Events.EPOCH_COMPLETED)
    def validate():
        evaluator.run(config.val_loader)

    if exp_tracking.has_trains:

        @trainer.on(Events.COMPLETED)
        def log_cm():
            cm = cm_metric.compute().cpu().numpy()

            if idist.get_rank() == 0:
                from trains import Task

                report = Task.current_task().get_logger()
                report.report_confusion_matrix(
                    title="Final Confusion Matrix",
                    series="cm-preds-gt",
                    matrix=cm,
                    iteration=trainer.state.iteration,
                    xlabels=class_names,
                    ylabels=class_names,
                )

    trainer.run(config.train_loader, max_epochs=config.num_epochs)
