# Learn a spiral
# A two-layer network classifies three interleaved spiral arms.  The training step is ordinary
# Python: wt.value_and_grad differentiates the loss, plain SGD updates the weights, and wt.jit
# compiles the whole step (forward, backward and update) into a few fused GPU kernels.
import math

import webtensor as wt

classes, per_class, hidden = 3, 100, 64
k_data, k_w1, k_w2 = wt.random.split(wt.random.key(0), 3)

# the data: three arms, radius 0..1, angle growing with the radius, a little noise
r = wt.concat([wt.linspace(0.0, 1.0, per_class)] * classes)
label = wt.repeat(wt.arange(classes), per_class)
angle = wt.astype(label, wt.float32) * (2 * math.pi / classes) + 4.0 * r
angle = angle + 0.2 * wt.random.normal(k_data, angle.shape)
points = wt.stack([r * wt.cos(angle), r * wt.sin(angle)], axis=1)

params = (wt.random.normal(k_w1, (2, hidden)), wt.zeros(hidden),
          0.1 * wt.random.normal(k_w2, (hidden, classes)), wt.zeros(classes))


def predict(params, x):
    w1, b1, w2, b2 = params
    return wt.nn.relu(x @ w1 + b1) @ w2 + b2


def loss(params, x, y):
    log_p = wt.nn.log_softmax(predict(params, x))
    return -wt.mean(wt.sum(wt.nn.one_hot(y, classes) * log_p, axis=1))


@wt.jit
def train_step(params, x, y, lr):
    value, grads = wt.value_and_grad(loss)(params, x, y)
    return value, tuple(p - lr * g for p, g in zip(params, grads))


@wt.jit
def accuracy(params, x, y):
    return wt.mean(wt.astype(wt.argmax(predict(params, x), axis=1) == y, wt.float32))


# the picture: every pixel coloured by the class probabilities, the training points on top
side = 48
ys, xs = wt.meshgrid(wt.linspace(1.1, -1.1, side), wt.linspace(-1.1, 1.1, side), indexing="ij")
grid = wt.stack([wt.reshape(xs, (-1,)), wt.reshape(ys, (-1,))], axis=1)
colours = wt.asarray([[0.95, 0.45, 0.35], [0.35, 0.7, 0.95], [0.5, 0.85, 0.45]])
cell = wt.astype(wt.clip(wt.round((points + 1.1) / 2.2 * (side - 1)), 0, side - 1), wt.int32)
dots = wt.zeros((side, side))
dots[side - 1 - cell[:, 1], cell[:, 0]] = 1.0


@wt.jit
def picture(params):
    p = wt.nn.softmax(predict(params, grid))
    image = wt.reshape(p @ colours, (side, side, 3))
    return image * (1 - 0.6 * dots[..., None])


losses = []
for step in range(201):
    value, params = train_step(params, points, label, 1.0)
    if step % 20 == 0:
        losses.append(value.item())
        wt.show(wt.asarray(losses), title="training loss (every 20 steps)", figure="loss")
        wt.show(picture(params), title=f"decision regions after {step} steps",
                figure="regions")

print(f"training accuracy: {accuracy(params, points, label).item():.1%}")
